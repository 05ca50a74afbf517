"""Run under mpirun by tests/python/test_mpi.py: commpress.mpi's isend/irecv, alltoallv and
ialltoallv, and the persistent allreduce_init against mpi4py's own operations; many requests
of every kind in flight at once, completed in an order that differs between ranks; arguments
mismatched across ranks, or refused by one rank's own checks, raising on every rank; a
nonblocking start that does not wait for the other ranks. Any failed check exits non-zero."""

import numpy as np
from mpi4py import MPI

import commpress
import commpress.mpi as cmpi
from checks import check, comm, finish, rank, size

rng = np.random.default_rng(500 + rank)
nxt, prv = (rank + 1) % size, (rank - 1) % size


def raised(action):
    """The commpress.Error class name action() raised, or None."""
    try:
        action()
        return None
    except commpress.Error as e:
        return type(e).__name__


def everyone_raised(action, what):
    got = comm.allgather(raised(action))
    check(None not in got and len(set(got)) == 1, f"{what}: ranks raised {got}")


def smooth(n, salt):
    return (np.cumsum(np.random.default_rng(salt).standard_normal(n)) / 50).astype(np.float32)


# isend/irecv around the ring (both posted before either completes), lossless and lossy
mine = smooth(20000, rank)
theirs = smooth(20000, prv)
for opts in ({"codec": "zstd-1"}, {"codec": "szp", "abs": 1e-3}):
    rq = cmpi.irecv(np.empty_like(mine), prv, tag=3, **opts)
    sq = cmpi.isend(mine, nxt, tag=3, **opts)
    got, rep = rq.wait()
    sent = sq.wait()
    check(isinstance(sent, cmpi.Report) and sent.raw_bytes == mine.nbytes, f"isend report {sent}")
    err = float(np.max(np.abs(got - theirs)))
    bound = opts.get("abs", 0.0)
    check(err <= bound and rep.guaranteed_abs_bound <= bound, f"irecv {opts}: err {err} {rep}")
    check(rq.test() and sq.test(), "test() after wait()")

# alltoallv: rank s sends 10 * (1 + (s + d) % 3) elements to rank d, packed (no
# displacements) on the send side and at gapped, reversed displacements on the receive side.
def block(s, d):
    return 10 * (1 + (s + d) % 3)


send_counts = [block(rank, d) for d in range(size)]
recv_counts = [block(s, rank) for s in range(size)]
recv_displs, at = [0] * size, 0
for s in reversed(range(size)):
    recv_displs[s] = at
    at += recv_counts[s] + 5
data = np.cumsum(rng.standard_normal(sum(send_counts))) / 20
want = np.zeros(at)
comm.Alltoallv([data, send_counts], [want, (recv_counts, recv_displs), MPI.DOUBLE])
got, rep = cmpi.alltoallv([data, send_counts], [np.zeros(at), (recv_counts, recv_displs),
                                                MPI.DOUBLE], codec="zstd-1", algorithm="pairwise")
check(np.array_equal(got, want) and rep.guaranteed_abs_bound == 0, f"alltoallv lossless {rep}")
req = cmpi.ialltoallv([data, send_counts, None], [np.zeros(at), recv_counts, recv_displs],
                      codec="szp", abs=1e-4)
got, rep = req.wait()
err = float(np.max(np.abs(got - want)))
check(0 < rep.guaranteed_abs_bound <= 1e-4 and err <= rep.guaranteed_abs_bound,
      f"ialltoallv lossy err {err} {rep}")

# chunk_bytes reaches the library (an agreed option, as in C++)
rep = cmpi.iallreduce(mine, codec="zstd-1", algorithm="doc_ring", chunk_bytes=1 << 12).wait()[1]
check(rep.chunk_bytes == 1 << 12, f"chunk_bytes 4096: {rep}")

# allreduce_init: started three times on rewritten buffers; the first run decides the
# algorithm; in place; startall and waitall
x = np.zeros(30000, np.float64)
persistent = cmpi.allreduce_init(x, codec="szp", abs=1e-3)
check(persistent.algorithm == "auto", f"before the first run: {persistent.algorithm}")
ints = np.zeros(500, np.int64)
in_place = cmpi.allreduce_init(MPI.IN_PLACE, ints, op="max")
decided = []
for step in range(3):
    x[:] = smooth(x.size, 10 * step + rank)
    exact = np.empty_like(x)
    comm.Allreduce(x, exact)
    ints[:] = rng.integers(-100, 100, ints.size)
    ints_max = np.empty_like(ints)
    comm.Allreduce(ints, ints_max, op=MPI.MAX)
    cmpi.startall([persistent, in_place])
    (got, rep), (got_ints, _) = cmpi.waitall([persistent, in_place])
    decided.append(persistent.algorithm)
    err = float(np.max(np.abs(got - exact)))
    check(err <= rep.guaranteed_abs_bound <= 1e-3, f"persistent run {step}: err {err} {rep}")
    check(got_ints is ints and np.array_equal(ints, ints_max), f"persistent in place run {step}")
check(decided[0] != "auto" and len(set(decided)) == 1, f"persistent algorithm {decided}")
persistent.start()
check(raised(persistent.start) == "InvalidArgument", "start() while running")
persistent.wait()

# many requests of every kind in flight; each rank completes them in its own order
expect, requests = [], []
for i in range(4):
    vals = np.arange(1000, dtype=np.float64) * (rank + 1) + i
    requests.append(cmpi.iallreduce(vals, codec="zstd-1", algorithm="doc_ring"))
    expect.append(np.arange(1000) * (size * (size + 1) // 2) + size * i)
    requests.append(cmpi.irecv(np.empty(700, np.float32), prv, tag=10 + i, codec="zstd-1"))
    expect.append(np.full(700, prv * 10 + i, np.float32))
    requests.append(cmpi.isend(np.full(700, rank * 10 + i, np.float32), nxt, tag=10 + i,
                               codec="zstd-1"))
    expect.append(None)
requests.append(cmpi.ialltoallv([data, send_counts], [np.zeros(at), recv_counts, recv_displs]))
expect.append(want)
persistent.start()
requests.append(persistent)
x_exact = np.empty_like(x)
comm.Allreduce(x, x_exact)
expect.append(x_exact)
order = np.random.default_rng(rank).permutation(len(requests))
pending = list(order)
while pending:   # odd ranks wait in their order; even ranks take whatever test() says is done
    ready = [i for i in pending if rank % 2 == 0 and requests[i].test()] or [pending[0]]
    for i in ready:
        result = requests[i].wait()
        pending.remove(i)
        if expect[i] is None:
            check(isinstance(result, cmpi.Report), f"request {i}: {result}")
        elif i == len(requests) - 1:
            check(np.max(np.abs(result[0] - expect[i])) <= result[1].guaranteed_abs_bound,
                  "persistent among others")
        else:
            check(np.array_equal(result[0], expect[i]), f"request {i} in flight")

# arguments mismatched across ranks, or refused by one rank's own checks (the last rank's,
# or rank 0's at one rank), raise the same error class on every rank: at the call for the
# blocking forms and allreduce_init, at wait() for the nonblocking ones
odd = rank == size - 1
for what, action in [
    ("alltoallv counts", lambda: cmpi.alltoallv(
        [data, send_counts], [np.zeros(at + 1), [c + odd for c in recv_counts], recv_displs])),
    ("alltoallv block beyond the array", lambda: cmpi.alltoallv(
        [data[:-1] if odd else data, send_counts], [np.zeros(at), recv_counts, recv_displs])),
    ("ialltoallv short counts", lambda: cmpi.ialltoallv(
        [data, send_counts[:-1] if odd else send_counts],
        [np.zeros(at), recv_counts, recv_displs]).wait()),
    ("allreduce_init count", lambda: cmpi.allreduce_init(np.zeros(10 + (odd and size > 1)),
                                                         np.zeros(11) if size == 1 else None)),
    ("allreduce_init recvbuf", lambda: cmpi.allreduce_init(np.zeros(10),
                                                           np.zeros(10, np.float32 if odd else
                                                                    np.float64))),
    ("iallreduce chunk_bytes", lambda: cmpi.iallreduce(
        np.zeros(10), algorithm="doc_ring", chunk_bytes=-1 if size == 1 else 4096 << odd).wait()),
    ("iallreduce dtype", lambda: cmpi.iallreduce(np.zeros(10, np.float16 if odd else
                                                          np.float32)).wait()),
    ("ibcast root", lambda: cmpi.ibcast(np.zeros(10), root="first" if odd else 0).wait()),
    ("bcast root beyond int", lambda: cmpi.bcast(np.zeros(10), root=2**40 if odd else 0)),
    ("iallgather bound", lambda: cmpi.iallgather(np.zeros(10), rel="tight" if odd else None)
     .wait()),
    ("ialltoall algorithm", lambda: cmpi.ialltoall(np.zeros(size), algorithm="fastest" if odd
                                                   else "auto").wait()),
]:
    everyone_raised(action, what)
got, _ = cmpi.iallreduce(np.ones(3)).wait()
check(np.array_equal(got, np.full(3, size)), "allreduce after the failures")

# A nonblocking start does not wait for the other ranks (with a progress thread): rank 1
# starts only after rank 0 has received its synchronous send, which rank 0 posts after its
# own start; a start that waited for rank 1 would never return. Also for a start refused by
# rank 0's own checks.
if size > 1 and cmpi.progress_thread_available():
    for bad in (False, True):
        if rank == 0:
            req = cmpi.iallreduce(np.zeros(4, np.complex64 if bad else np.float64))
            comm.recv(source=1, tag=99)
        else:
            if rank == 1:
                comm.ssend("started", dest=0, tag=99)
            req = cmpi.iallreduce(np.zeros(4))
        result = raised(req.wait)
        everyone = comm.allgather(result)
        check(everyone == [None] * size if not bad else None not in everyone,
              f"start before the others (bad: {bad}): {everyone}")

finish("requests")
