"""Run under mpirun by tests/python/test_mpi.py: every rank checks commpress.mpi against
mpi4py's own operations; any failed check exits non-zero (mpirun then fails)."""

import numpy as np
from mpi4py import MPI

import commpress
import commpress.mpi as cmpi
from checks import check, comm, finish, rank, size

rng = np.random.default_rng(100 + rank)


def exact_sum(x):
    out = np.empty(x.shape, np.float64)
    comm.Allreduce(x.astype(np.float64), out, op=MPI.SUM)
    return out


# allreduce: lossless equals MPI's result bit for bit (integers: any algorithm is exact)
ints = rng.integers(-1000, 1000, size=(50, 40)).astype(np.int32)
want = np.empty_like(ints)
comm.Allreduce(ints, want, op=MPI.SUM)
got, rep = cmpi.allreduce(ints, codec="zstd-1", algorithm="auto")
check(np.array_equal(got, want) and got.shape == ints.shape, "allreduce int32 sum exact")
check(rep.guaranteed_abs_bound == 0, "allreduce lossless report bound 0")

for dtype in (np.float32, np.float64):
    x = (np.cumsum(rng.standard_normal(60000)) / 100).astype(dtype)   # smooth, |x| up to ~10
    ref = exact_sum(x)
    for algorithm in ("auto", "doc_ring", "fused_ring", "homomorphic_ring", "rabenseifner"):
        got, rep = cmpi.allreduce(x, codec="szp", abs=1e-3, algorithm=algorithm)
        err = float(np.max(np.abs(got.astype(np.float64) - ref)))
        check(rep.guaranteed_abs_bound <= 1e-3 + 1e-12, f"{algorithm} bound {rep.guaranteed_abs_bound}")
        # the guaranteed bound covers the rounding of the sum in dtype too
        check(err <= rep.guaranteed_abs_bound, f"allreduce {algorithm} {dtype.__name__} err {err} > {rep.guaranteed_abs_bound}")
        if algorithm != "auto":
            check(rep.algorithm == algorithm and rep.codec == "szp", f"ran {rep}")
    # MPI.IN_PLACE and an MPI.Op
    buf = x.copy()
    got, rep = cmpi.allreduce(MPI.IN_PLACE, buf, op=MPI.MAX)
    want = np.empty_like(x)
    comm.Allreduce(x, want, op=MPI.MAX)
    check(got is buf and np.array_equal(buf, want), "allreduce IN_PLACE max")

# reduce_scatter (block)
x = rng.standard_normal(size * 5000)
got, rep = cmpi.reduce_scatter(x, codec="szp", rel=1e-5, algorithm="doc_ring")
ref = exact_sum(x)[rank * 5000:(rank + 1) * 5000]
check(got.shape == (5000,) and np.max(np.abs(got - ref)) <= rep.guaranteed_abs_bound,
      "reduce_scatter within bound")

# bcast: lossless and lossy
b = np.arange(30000, dtype=np.float32) * 0.5 if rank == 1 % size else np.zeros(30000, np.float32)
src = np.arange(30000, dtype=np.float32) * 0.5
got, rep = cmpi.bcast(b.copy(), root=1 % size, codec="zstd-1", algorithm="binomial")
check(np.array_equal(got, src), "bcast lossless")
got, rep = cmpi.bcast(b.copy(), root=1 % size, codec="szp", abs=0.01, algorithm="binomial")
check(np.max(np.abs(got - src)) <= rep.guaranteed_abs_bound <= 0.01, "bcast lossy within bound")

# allgather
mine = np.full((10, 20), rank, np.float64) + rng.standard_normal((10, 20))
got, rep = cmpi.allgather(mine, codec="zstd-1", algorithm="ring")
want = np.empty((size, 10, 20))
comm.Allgather(mine, want)
check(got.shape == (size, 10, 20) and np.array_equal(got, want), "allgather lossless")

# send / recv around a ring
data = np.sin(np.arange(40000, dtype=np.float32) * (rank + 1) * 1e-3)
nxt, prv = (rank + 1) % size, (rank - 1) % size
if rank % 2 == 0:
    cmpi.send(data, nxt, tag=7, codec="szp", abs=1e-4)
    got, rep = cmpi.recv(np.empty_like(data), prv, tag=7, codec="szp", abs=1e-4)
else:
    got, rep = cmpi.recv(np.empty_like(data), prv, tag=7, codec="szp", abs=1e-4)
    cmpi.send(data, nxt, tag=7, codec="szp", abs=1e-4)
theirs = np.sin(np.arange(40000, dtype=np.float32) * (prv + 1) * 1e-3)
check(np.max(np.abs(got - theirs)) <= 1e-4, "send/recv within bound")

# arguments mismatched across ranks raise the same commpress.Error on every rank
for name, call in [
    ("count", lambda: cmpi.allreduce(np.ones(100 + (rank == size - 1), np.float32))),
    ("codec", lambda: cmpi.allreduce(np.ones(100, np.float32), codec="szp" if rank else "zstd-1",
                                     abs=1e-3)),
    ("local dtype", lambda: cmpi.allreduce(np.ones(10, np.complex64 if rank == 0 else np.float32))),
    ("bound", lambda: cmpi.bcast(np.ones(10, np.float32), codec="szp", abs=1e-3 * (1 + rank))),
]:
    try:
        call()
        raised = None
    except commpress.Error as e:
        raised = type(e).__name__
    everyone = comm.allgather(raised)
    check(all(r is not None for r in everyone) and len(set(everyone)) == 1,
          f"mismatched {name}: ranks raised {everyone}")

finish("commpress.mpi")
