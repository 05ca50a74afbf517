"""Run under mpirun by tests/python/test_mpi.py: commpress.mpi.alltoall against mpi4py's
Alltoall, and the nonblocking forms (iallreduce ... ialltoall, Request, waitall) against the
blocking ones. Any failed check exits non-zero (mpirun then fails)."""

import numpy as np
from mpi4py import MPI

import commpress
import commpress.mpi as cmpi
from checks import check, comm, finish, rank, size

rng = np.random.default_rng(300 + rank)


threaded = cmpi.progress_thread_available()
check(threaded == (MPI.Query_thread() == MPI.THREAD_MULTIPLE),
      "progress thread under MPI_THREAD_MULTIPLE")
if rank == 0:
    print(f"progress thread: {threaded}")

# alltoall: lossless equals MPI's bit for bit; lossy within the reported bound
blocks = (np.cumsum(rng.standard_normal((size, 3000)), axis=1) / 50).astype(np.float32)
want = np.empty_like(blocks)
comm.Alltoall(blocks, want)
got, rep = cmpi.alltoall(blocks, codec="zstd-1", algorithm="pairwise")
check(got.shape == blocks.shape and np.array_equal(got, want), "alltoall lossless")
check(rep.guaranteed_abs_bound == 0 and rep.algorithm == "pairwise", f"alltoall lossless {rep}")
got, rep = cmpi.alltoall(blocks, np.empty(blocks.size, np.float32), codec="szp", abs=1e-3,
                         algorithm="pairwise")
err = float(np.max(np.abs(got.reshape(blocks.shape) - want)))
check(0 < rep.guaranteed_abs_bound <= 1e-3 and err <= rep.guaranteed_abs_bound,
      f"alltoall lossy err {err} bound {rep.guaranteed_abs_bound}")
ints = rng.integers(-9, 9, size * 7).astype(np.int64)
want = np.empty_like(ints)
comm.Alltoall(ints, want)
check(np.array_equal(cmpi.alltoall(ints)[0], want), "alltoall int64 auto")

# nonblocking forms equal the blocking ones (same inputs, same options: the same algorithm
# runs, so lossy results are identical too); all in flight, completed in reverse order
x = (np.cumsum(rng.standard_normal(size * 4000)) / 100).astype(np.float64)
root = 1 % size
b = x.copy() if rank == root else np.zeros_like(x)
lossy = {"codec": "szp", "abs": 1e-4}
blocking = [
    cmpi.allreduce(x, **lossy, algorithm="doc_ring"),
    cmpi.reduce_scatter(x, **lossy, algorithm="doc_ring"),
    cmpi.bcast(b.copy(), root=root, **lossy, algorithm="binomial"),
    cmpi.allgather(x[:500], codec="zstd-1", algorithm="ring"),
    cmpi.alltoall(x, **lossy, algorithm="pairwise"),
]
bbuf = b.copy()
requests = [
    cmpi.iallreduce(x, **lossy, algorithm="doc_ring"),
    cmpi.ireduce_scatter(x, **lossy, algorithm="doc_ring"),
    cmpi.ibcast(bbuf, root=root, **lossy, algorithm="binomial"),
    cmpi.iallgather(x[:500], codec="zstd-1", algorithm="ring"),
    cmpi.ialltoall(x, **lossy, algorithm="pairwise"),
]
names = ("iallreduce", "ireduce_scatter", "ibcast", "iallgather", "ialltoall")
done = {}
for i in reversed(range(len(requests))):
    done[i] = requests[i].wait()
    check(requests[i].test(), f"{names[i]} test() after wait()")
for i, name in enumerate(names):
    (want, want_rep), (got, got_rep) = blocking[i], done[i]
    check(got.shape == want.shape and np.array_equal(got, want), f"{name} equals blocking")
    same = ("algorithm", "codec", "bytes_sent", "guaranteed_abs_bound")
    check(all(getattr(got_rep, f) == getattr(want_rep, f) for f in same),
          f"{name} report {got_rep} vs blocking {want_rep}")
check(done[2][0] is bbuf, "ibcast result is the buffer")

# waitall; in-place iallreduce on a buffer only the request holds (the Python name dropped)
buf = np.arange(1000, dtype=np.float32)
reqs = [cmpi.iallreduce(MPI.IN_PLACE, buf, codec="zstd-1", algorithm="doc_ring"),
        cmpi.iallreduce(np.full(10, rank, np.int32), algorithm="mpi")]
del buf
res = cmpi.waitall(reqs)
check(np.array_equal(res[0][0], np.arange(1000, dtype=np.float32) * size), "waitall in place")
check(np.array_equal(res[1][0], np.full(10, size * (size - 1) // 2)), "waitall int32")

# a mismatch the library finds (counts, bounds) raises the same error on every rank at wait(),
# as does waitall; the next operation works. (One rank has nothing to mismatch.)
for name, start in [
    ("count", lambda: cmpi.iallreduce(np.ones(100 + (rank == size - 1), np.float32))),
    ("bound", lambda: cmpi.ibcast(np.ones(10, np.float32), codec="szp", abs=1e-3 * (1 + rank))),
    ("alltoall count", lambda: cmpi.ialltoall(np.ones(size * (2 + (rank == 0)), np.float32))),
] if size > 1 else []:
    req = start()
    raised = []
    for wait in (req.wait, lambda: cmpi.waitall([req])):
        try:
            wait()
            raised.append(None)
        except commpress.Error as e:
            raised.append(type(e).__name__)
    everyone = comm.allgather(raised)
    check(all(None not in r for r in everyone) and len({tuple(r) for r in everyone}) == 1,
          f"mismatched {name}: ranks raised {everyone} at wait(), waitall()")
got, _ = cmpi.iallreduce(np.ones(5, np.float32)).wait()
check(np.array_equal(got, np.full(5, size, np.float32)), "allreduce after failures")
# one rank's own argument check failing (a sendbuf not of size equal blocks) raises the same
# class on every rank at wait(), as the library's mismatches do
req = cmpi.ialltoall(np.ones(size + (rank == 0 and size > 1), np.float32) if size > 1
                     else np.ones(3, np.complex64))
try:
    req.wait()
    raised = None
except commpress.Error as e:
    raised = type(e).__name__
check(len(set(comm.allgather(raised))) == 1 and raised is not None,
      f"bad local argument raised {raised}")

finish("nonblocking")
