"""Compressed MPI operations on NumPy arrays and any mpi4py communicator
(include/commpress/comm.hpp, nonblocking.hpp, docs/algorithms.md, docs/error-bounds.md).

    from mpi4py import MPI
    import commpress.mpi as cmpi
    result, report = cmpi.allreduce(grad, op="sum", rel=1e-4)
    # |result - exact sum| <= report.guaranteed_abs_bound on every element

mpi4py's conventions: ``sendbuf`` may be ``MPI.IN_PLACE`` (the result then lands in
``recvbuf``); ``recvbuf=None`` allocates the result; ops by name ("sum", "min", "max",
"prod") or as ``MPI.SUM``...; alltoallv takes mpi4py's ``[array, counts, displs]``. The bound
is on the result; ``codec=None`` means the library's "auto" (szp for a lossy bound,
uncompressed when exact). Every collective returns ``(result, Report)``. The library agrees
on the arguments across ranks before moving data: a mismatch, or a bad argument on one rank
(this module's own checks included), raises a commpress.Error of the same class on every rank.

The nonblocking forms (iallreduce, ireduce_scatter, ibcast, iallgather, ialltoall,
ialltoallv, isend, irecv) take the same arguments and return a Request (test(), wait() ->
what the blocking call returns; waitall). The collectives progress on the library's thread
where MPI runs at MPI_THREAD_MULTIPLE, mpi4py's default; below it they run when started.
allreduce_init makes a persistent allreduce (start(), wait(), startall). docs/python.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mpi4py import MPI

try:
    from . import _mpi
except ImportError as e:   # a wheel built without MPI or mpi4py (docs/python.md)
    raise ImportError("commpress.mpi: this installation was built without MPI or mpi4py; "
                      "reinstall (pip install .) where both are present") from e
from ._errors import Error, InvalidArgument, error_from_code
from ._mpi_call import as_int, op_code, prepare, settle

_mpi.set_error_factory(error_from_code)


@dataclass(frozen=True)
class Report:
    """What ran (commpress::comm::Report)."""
    algorithm: str
    codec: str
    raw_bytes: int
    bytes_sent: int
    ratio: float
    guaranteed_abs_bound: float
    predicted_seconds: float
    chunk_bytes: int


# Each operation's arguments are checked once, by its plan (it fills a _mpi_call.Call); the
# blocking call and its nonblocking form hand the same Call to the module's two entry points.

def _reduction(sendbuf, recvbuf, op, scatter):
    """allreduce (the result of sendbuf's shape, or recvbuf with MPI.IN_PLACE) or
    reduce_scatter_block (``sendbuf`` is size equal blocks; the result is one, 1-D)."""
    def plan(c):
        if sendbuf is MPI.IN_PLACE and not scatter:
            s = out = c.array(recvbuf, "recvbuf", writable=True, per_rank=1)
        else:
            s = c.array(sendbuf, "sendbuf", per_rank=c.size if scatter else 1)
            if scatter and s.size % c.size:
                raise InvalidArgument(f"sendbuf's {s.size} elements are not {c.size} equal "
                                      "blocks")
            n = s.size // c.size if scatter else s.size
            if recvbuf is None:
                out = np.empty(n, s.dtype) if scatter else np.empty_like(s)
            else:
                out = c.array(recvbuf, "recvbuf", writable=True)
            if out.dtype != s.dtype or out.size != n:
                raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] is not "
                                      f"{s.dtype}[{n}]")
        c.op = op_code(op)
        c.send, c.recv, c.result = s, out, out
    return plan


def _reduction_args(c):
    return (c.send, c.recv, c.count, c.dtype, c.op, c.fh, c.opts())


def _bcast(buf, root):
    def plan(c):
        c.recv = c.result = c.array(buf, "buf", writable=True, per_rank=1)
        c.root = as_int(root, "root")
    return plan


def _bcast_args(c):
    return (c.recv, c.count, c.dtype, c.root, c.fh, c.opts())


def _exchange(sendbuf, recvbuf, gather):
    """allgather (``gather``): the result holds size copies' worth of ``sendbuf``, shape
    ``(size, *sendbuf.shape)`` when allocated here. alltoall: ``sendbuf`` is size equal blocks
    and the result has its shape. The count passed on is per rank, as MPI counts it."""
    def plan(c):
        s = c.array(sendbuf, "sendbuf", per_rank=1 if gather else c.size)
        if not gather and s.size % c.size:
            raise InvalidArgument(f"sendbuf's {s.size} elements are not {c.size} equal blocks")
        shape = (c.size,) + s.shape if gather else s.shape
        out = np.empty(shape, s.dtype) if recvbuf is None else \
            c.array(recvbuf, "recvbuf", writable=True)
        total = c.size * s.size if gather else s.size
        if out.dtype != s.dtype or out.size != total:
            raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] is not {s.dtype}[{total}]")
        c.send, c.recv, c.result = s, out, out
    return plan


def _exchange_args(c):
    return (c.send, c.recv, c.count, c.dtype, c.fh, c.opts())


_VECTOR_FORM = ("[array, counts], [array, counts, displs] or [array, (counts, displs)], "
                "optionally ending with the MPI datatype (mpi4py's form)")


def _ints(values, size, what):
    try:
        out = [as_int(v, what, 0, 2**63 - 1) for v in values]
    except TypeError:
        raise InvalidArgument(f"{what} must be a sequence of integers") from None
    if len(out) != size:
        raise InvalidArgument(f"{what}: {size} non-negative integers (one per rank), not "
                              f"{values!r}")
    return out


def _vector(c, spec, what, writable):
    """One side of alltoallv: the array and its counts and displacements (in elements; the
    displacements default to the blocks packed in rank order)."""
    if not isinstance(spec, (list, tuple)) or len(spec) < 2:
        raise InvalidArgument(f"{what}: {_VECTOR_FORM}")
    items = list(spec)
    datatype = items.pop() if isinstance(items[-1], MPI.Datatype) else None
    a = c.array(items[0], f"{what}[0]", writable, per_rank=None if writable else 1)
    if datatype is not None:
        from mpi4py.util.dtlib import to_numpy_dtype
        if to_numpy_dtype(datatype) != a.dtype:
            raise InvalidArgument(f"{what}: the MPI datatype does not describe {a.dtype}")
    rest = items[1:]
    if len(rest) == 1 and isinstance(rest[0], tuple) and len(rest[0]) == 2 and \
            not np.isscalar(rest[0][0]):
        rest = list(rest[0])
    if len(rest) not in (1, 2):
        raise InvalidArgument(f"{what}: {_VECTOR_FORM}")
    counts = _ints(rest[0], c.size, f"{what} counts")
    if len(rest) == 2 and rest[1] is not None:
        displs = _ints(rest[1], c.size, f"{what} displacements")
    else:
        displs = np.concatenate(([0], np.cumsum(counts[:-1], dtype=np.int64))).tolist()
    for r, (n, d) in enumerate(zip(counts, displs)):
        if n and d + n > a.size:
            raise InvalidArgument(f"{what}: block {r} ({n} elements at {d}) is beyond the "
                                  f"array's {a.size} elements")
    return a, counts, displs


def _alltoallv(sendbuf, recvbuf):
    def plan(c):
        s, sc, sd = _vector(c, sendbuf, "sendbuf", writable=False)
        r, rc, rd = _vector(c, recvbuf, "recvbuf", writable=True)
        if r.dtype != s.dtype:
            raise InvalidArgument(f"recvbuf {r.dtype} is not sendbuf's {s.dtype}")
        c.send, c.recv, c.result = s, r, r
        c.layout = sc, sd, rc, rd
    return plan


def _alltoallv_args(c):
    sc, sd, rc, rd = c.layout
    return (c.send, sc, sd, c.recv, rc, rd, c.dtype, c.fh, c.opts())


def _collective(plan, operation, arguments, comm, codec, rel, abs_, algorithm, chunk_bytes):
    """Runs the blocking ``operation`` on every rank: ``(result, Report)``, or the same class
    of commpress.Error everywhere."""
    c = prepare(plan, comm, codec, rel, abs_, algorithm, chunk_bytes)
    report = settle(c.error, lambda: operation(*arguments(c)))
    return c.result, Report(**report)


def _started(plan, operation, arguments, comm, codec, rel, abs_, algorithm,
             chunk_bytes) -> Request:
    """Starts the nonblocking ``operation``; a rank whose checks failed starts it too (with
    null buffers, which the library refuses on every rank) and raises its error at wait()."""
    c = prepare(plan, comm, codec, rel, abs_, algorithm, chunk_bytes)
    return Request(operation(*arguments(c)), c.result, c.error)


def allreduce(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None, abs=None,
              algorithm="auto", chunk_bytes=0):
    """Every rank gets the reduction of all ranks' ``sendbuf`` (any shape)."""
    return _collective(_reduction(sendbuf, recvbuf, op, False), _mpi.allreduce,
                       _reduction_args, comm, codec, rel, abs, algorithm, chunk_bytes)


def reduce_scatter(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                   abs=None, algorithm="auto", chunk_bytes=0):
    """Rank r gets block r of the reduction (MPI_Reduce_scatter_block): ``sendbuf`` holds
    size equal blocks; the result is 1-D (``sendbuf.size // size`` elements)."""
    return _collective(_reduction(sendbuf, recvbuf, op, True), _mpi.reduce_scatter_block,
                       _reduction_args, comm, codec, rel, abs, algorithm, chunk_bytes)


def bcast(buf, root=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto",
          chunk_bytes=0):
    """``buf`` (an array on every rank, of the same dtype and size) gets root's values."""
    return _collective(_bcast(buf, root), _mpi.bcast, _bcast_args, comm, codec, rel, abs,
                       algorithm, chunk_bytes)


def allgather(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto", chunk_bytes=0):
    """Every rank gets all ranks' ``sendbuf``: shape ``(size, *sendbuf.shape)`` when
    allocated here."""
    return _collective(_exchange(sendbuf, recvbuf, True), _mpi.allgather, _exchange_args,
                       comm, codec, rel, abs, algorithm, chunk_bytes)


def alltoall(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
             algorithm="auto", chunk_bytes=0):
    """MPI_Alltoall: ``sendbuf`` is size equal blocks in rank order (for example shape
    ``(size, ...)``); block d goes to rank d, and block s of the result (of sendbuf's shape
    when allocated here) came from rank s."""
    return _collective(_exchange(sendbuf, recvbuf, False), _mpi.alltoall, _exchange_args,
                       comm, codec, rel, abs, algorithm, chunk_bytes)


def alltoallv(sendbuf, recvbuf, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto", chunk_bytes=0):
    """MPI_Alltoallv with mpi4py's buffer forms: ``sendbuf`` and ``recvbuf`` are
    ``[array, counts]``, ``[array, counts, displs]`` or ``[array, (counts, displs)]`` (in
    elements, one per rank; a trailing MPI datatype is allowed and must describe the array;
    without displacements the blocks are packed in rank order). ``counts[d]`` of sendbuf on
    this rank must equal recvbuf's ``counts[this rank]`` on rank d. Returns
    ``(recvbuf's array, Report)``."""
    return _collective(_alltoallv(sendbuf, recvbuf), _mpi.alltoallv, _alltoallv_args, comm,
                       codec, rel, abs, algorithm, chunk_bytes)


_REPORT_ONLY = object()   # a Request whose blocking call returns the Report alone (send)


class Request:
    """A nonblocking operation in flight (include/commpress/nonblocking.hpp, comm.hpp). It
    holds the buffers until the operation completes. ``test()`` never blocks; ``wait()`` (the
    GIL released) returns what the blocking call returns or raises its commpress.Error, on
    every rank alike; a second ``wait()`` gives the same. A request dropped unfinished waits
    for its operation."""

    __slots__ = ("_native", "_result", "_error")

    def __init__(self, native, result, error=None):
        self._native, self._result, self._error = native, result, error

    def test(self) -> bool:
        return self._native.test()

    def wait(self):
        report = Report(**settle(self._error, self._native.wait))
        return report if self._result is _REPORT_ONLY else (self._result, report)


def waitall(requests):
    """Waits for every request; returns their results in order, or raises the first failure
    in the list's order once all have completed."""
    results, failure = [], None
    for r in requests:
        try:
            results.append(r.wait())
        except Error as e:
            results.append(None)
            failure = failure or e
    if failure is not None:
        raise failure
    return results


def progress_thread_available() -> bool:
    """Whether nonblocking collectives progress while the caller computes: MPI initialised
    with MPI_THREAD_MULTIPLE (mpi4py's default). Below it they run when started."""
    return _mpi.progress_thread_available()


def iallreduce(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None, abs=None,
               algorithm="auto", chunk_bytes=0) -> Request:
    """allreduce, started: returns a Request."""
    return _started(_reduction(sendbuf, recvbuf, op, False), _mpi.iallreduce, _reduction_args,
                    comm, codec, rel, abs, algorithm, chunk_bytes)


def ireduce_scatter(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                    abs=None, algorithm="auto", chunk_bytes=0) -> Request:
    """reduce_scatter, started: returns a Request."""
    return _started(_reduction(sendbuf, recvbuf, op, True), _mpi.ireduce_scatter_block,
                    _reduction_args, comm, codec, rel, abs, algorithm, chunk_bytes)


def ibcast(buf, root=0, *, comm=None, codec=None, rel=None, abs=None,
           algorithm="auto", chunk_bytes=0) -> Request:
    """bcast, started: returns a Request."""
    return _started(_bcast(buf, root), _mpi.ibcast, _bcast_args, comm, codec, rel, abs,
                    algorithm, chunk_bytes)


def iallgather(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
               algorithm="auto", chunk_bytes=0) -> Request:
    """allgather, started: returns a Request."""
    return _started(_exchange(sendbuf, recvbuf, True), _mpi.iallgather, _exchange_args, comm,
                    codec, rel, abs, algorithm, chunk_bytes)


def ialltoall(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto", chunk_bytes=0) -> Request:
    """alltoall, started: returns a Request."""
    return _started(_exchange(sendbuf, recvbuf, False), _mpi.ialltoall, _exchange_args, comm,
                    codec, rel, abs, algorithm, chunk_bytes)


def ialltoallv(sendbuf, recvbuf, *, comm=None, codec=None, rel=None, abs=None,
               algorithm="auto", chunk_bytes=0) -> Request:
    """alltoallv, started: returns a Request (the counts are copied at the call)."""
    return _started(_alltoallv(sendbuf, recvbuf), _mpi.ialltoallv, _alltoallv_args, comm,
                    codec, rel, abs, algorithm, chunk_bytes)


class PersistentRequest:
    """A persistent allreduce (MPI_Allreduce_init; include/commpress/nonblocking.hpp): made
    once, then ``start()`` runs it on the buffers' contents at that moment and ``wait()``
    returns ``(result, Report)`` as allreduce does. The algorithm is decided by the first run
    and kept (``algorithm``). The request holds the buffers while it lives; between
    ``wait()`` and the next ``start()`` the caller may rewrite ``sendbuf``."""

    __slots__ = ("_native", "_result")

    def __init__(self, native, result):
        self._native, self._result = native, result

    def start(self):
        """Starts one run; InvalidArgument if one is already running."""
        self._native.start()

    def test(self) -> bool:
        return self._native.test()

    def wait(self):
        return self._result, Report(**self._native.wait())

    @property
    def algorithm(self) -> str:
        """"auto" until the first run completed; then the one every run uses."""
        return self._native.algorithm


def startall(requests):
    """Starts every persistent request, in order (MPI_Startall)."""
    for r in requests:
        r.start()


def allreduce_init(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                   abs=None, algorithm="auto", chunk_bytes=0) -> PersistentRequest:
    """allreduce's arguments, agreed once (collective: a mismatch raises on every rank here);
    returns a PersistentRequest (not started)."""
    c = prepare(_reduction(sendbuf, recvbuf, op, False), comm, codec, rel, abs, algorithm,
                chunk_bytes)
    native = settle(c.error, lambda: _mpi.allreduce_init(*_reduction_args(c)))
    return PersistentRequest(native, c.result)


def _point_to_point(plan, peer, tag, comm, codec, rel, abs_, algorithm, chunk_bytes):
    """The Call of send or recv; local errors raise here (no agreement: one peer, as MPI)."""
    def checked(c):
        plan(c)
        c.peer, c.tag = as_int(peer, "peer"), as_int(tag, "tag")
    c = prepare(checked, comm, codec, rel, abs_, algorithm, chunk_bytes)
    if c.error is not None:
        raise c.error
    return c


def _outgoing(buf):
    def plan(c):
        c.send = c.array(buf, "buf", per_rank=1)
    return plan


def _incoming(buf):
    def plan(c):
        c.recv = c.result = c.array(buf, "buf", writable=True, per_rank=1)
    return plan


def send(buf, dest, tag=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto",
         chunk_bytes=0):
    """Sends ``buf`` to ``dest``; the receiver passes an array of the same dtype and size and
    the same codec. Returns the Report."""
    c = _point_to_point(_outgoing(buf), dest, tag, comm, codec, rel, abs, algorithm, chunk_bytes)
    return Report(**_mpi.send(c.send, c.count, c.dtype, c.peer, c.tag, c.fh, c.opts()))


def recv(buf, source, tag=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto",
         chunk_bytes=0):
    """Receives into ``buf`` (its dtype and size must be the sender's); returns (buf, Report)."""
    c = _point_to_point(_incoming(buf), source, tag, comm, codec, rel, abs, algorithm, chunk_bytes)
    rep = _mpi.recv(c.recv, c.count, c.dtype, c.peer, c.tag, c.fh, c.opts())
    return c.result, Report(**rep)


def isend(buf, dest, tag=0, *, comm=None, codec=None, rel=None, abs=None,
          algorithm="auto", chunk_bytes=0) -> Request:
    """send, started (compressed and posted now); ``wait()`` returns the Report."""
    c = _point_to_point(_outgoing(buf), dest, tag, comm, codec, rel, abs, algorithm, chunk_bytes)
    native = _mpi.isend(c.send, c.count, c.dtype, c.peer, c.tag, c.fh, c.opts())
    return Request(native, _REPORT_ONLY)


def irecv(buf, source, tag=0, *, comm=None, codec=None, rel=None, abs=None,
          algorithm="auto", chunk_bytes=0) -> Request:
    """recv, started; ``wait()`` returns ``(buf, Report)``. At most one commpress receive
    pending per (source, tag, communicator): a compressed message is several MPI messages."""
    c = _point_to_point(_incoming(buf), source, tag, comm, codec, rel, abs, algorithm, chunk_bytes)
    native = _mpi.irecv(c.recv, c.count, c.dtype, c.peer, c.tag, c.fh, c.opts())
    return Request(native, c.result)
