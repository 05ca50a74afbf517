"""Compressed MPI operations on NumPy arrays and any mpi4py communicator
(include/commpress/comm.hpp, docs/algorithms.md, docs/error-bounds.md).

    from mpi4py import MPI
    import commpress.mpi as cmpi
    result, report = cmpi.allreduce(grad, op="sum", rel=1e-4)
    # |result - exact sum| <= report.guaranteed_abs_bound on every element

mpi4py's conventions: ``sendbuf`` may be ``MPI.IN_PLACE`` (the result then lands in
``recvbuf``); ``recvbuf=None`` allocates the result; ops by name ("sum", "min", "max",
"prod") or as ``MPI.SUM``... The bound is on the result; ``codec=None`` means the library's
"auto" (szp for a lossy bound, uncompressed when exact). Every call returns
``(result, Report)``. The library agrees on the arguments across ranks before moving data:
a mismatch raises the same ``commpress.Error`` on every rank; so do this module's own checks
of local arguments, which it agrees on first (one small extra allgather per call).

The nonblocking forms (iallreduce, ireduce_scatter, ibcast, iallgather, ialltoall) take the
same arguments and return a Request (test(), wait() -> (result, Report); waitall). They
progress on the library's thread where MPI runs at MPI_THREAD_MULTIPLE, mpi4py's default;
below it they run when started (docs/python.md).
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
from ._array import _CODE_OF, _bound
from ._errors import Error, InvalidArgument, error_from_code

_mpi.set_error_factory(error_from_code)

_OPS = {"sum": 0, "min": 1, "max": 2, "prod": 3}
_MPI_OPS = ((MPI.SUM, 0), (MPI.MIN, 1), (MPI.MAX, 2), (MPI.PROD, 3))   # MPI.Op is unhashable


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


def _op_code(op):
    if isinstance(op, str) and op.lower() in _OPS:
        return _OPS[op.lower()]
    for mpi_op, code in _MPI_OPS:
        if op == mpi_op:
            return code
    raise InvalidArgument(f"op {op!r}: one of sum, min, max, prod (or MPI.SUM...)")


def _agree(comm, check):
    """Runs the local argument check on every rank and fails all ranks together if any failed
    (no rank is left waiting in a collective the others never enter)."""
    try:
        value = check()
        problem = None
    except InvalidArgument as e:
        value, problem = None, e.message
    problems = comm.allgather(problem)
    failed = [(rank, p) for rank, p in enumerate(problems) if p is not None]
    if failed:
        raise InvalidArgument("; ".join(f"rank {r}: {p}" for r, p in failed))
    return value


def _array(buf, what, writable=False):
    a = np.asarray(buf)
    if a.dtype not in _CODE_OF or not a.dtype.isnative:
        raise InvalidArgument(f"{what}: dtype {a.dtype} is not a native float32, float64, int32, "
                              "int64 or uint8")
    if not a.flags.c_contiguous or (writable and not a.flags.writeable):
        raise InvalidArgument(f"{what} must be C-contiguous{' and writeable' if writable else ''}")
    return a


def _common(comm, codec, rel, abs_, algorithm):
    comm = MPI.COMM_WORLD if comm is None else comm
    mode, value = _bound(rel, abs_, False)
    return comm, comm.py2f(), "auto" if codec is None else codec, mode, value, algorithm


# Each collective's arguments are checked (agreed across ranks) once, here; the blocking call
# and its nonblocking form pass the same arguments to the module's two entry points.

def _allreduce_args(sendbuf, recvbuf, op, comm, codec, rel, abs_, algorithm):
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs_, algorithm)

    def check():
        _op_code(op)
        if sendbuf is MPI.IN_PLACE:
            out = _array(recvbuf, "recvbuf", writable=True)
            return out, out     # the same buffer twice: the library's in-place form
        s = _array(sendbuf, "sendbuf")
        out = np.empty_like(s) if recvbuf is None else _array(recvbuf, "recvbuf", writable=True)
        if out.dtype != s.dtype or out.size != s.size:
            raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] does not match sendbuf "
                                  f"{s.dtype}[{s.size}]")
        return s, out
    s, out = _agree(comm, check)
    return out, (s, out, out.size, _CODE_OF[out.dtype], _op_code(op), fh, codec, mode, value,
                 algorithm)


def _reduce_scatter_args(sendbuf, recvbuf, op, comm, codec, rel, abs_, algorithm):
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs_, algorithm)
    size = comm.Get_size()

    def check():
        _op_code(op)
        s = _array(sendbuf, "sendbuf")
        if s.size % size:
            raise InvalidArgument(f"sendbuf's {s.size} elements are not {size} equal blocks")
        n = s.size // size
        out = np.empty(n, s.dtype) if recvbuf is None else _array(recvbuf, "recvbuf", True)
        if out.dtype != s.dtype or out.size != n:
            raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] is not {s.dtype}[{n}]")
        return s, out
    s, out = _agree(comm, check)
    return out, (s, out, out.size, _CODE_OF[out.dtype], _op_code(op), fh, codec, mode, value,
                 algorithm)


def _bcast_args(buf, root, comm, codec, rel, abs_, algorithm):
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs_, algorithm)
    b = _agree(comm, lambda: _array(buf, "buf", writable=True))
    return b, (b, b.size, _CODE_OF[b.dtype], root, fh, codec, mode, value, algorithm)


def _exchange_args(sendbuf, recvbuf, gather, comm, codec, rel, abs_, algorithm):
    """allgather (``gather``): the result holds size copies' worth of ``sendbuf``, shape
    ``(size, *sendbuf.shape)`` when allocated here. alltoall: ``sendbuf`` is size equal blocks
    and the result has its shape. The count passed on is per rank, as MPI counts it."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs_, algorithm)
    size = comm.Get_size()

    def check():
        s = _array(sendbuf, "sendbuf")
        if not gather and s.size % size:
            raise InvalidArgument(f"sendbuf's {s.size} elements are not {size} equal blocks")
        shape = (size,) + s.shape if gather else s.shape
        out = np.empty(shape, s.dtype) if recvbuf is None else \
            _array(recvbuf, "recvbuf", writable=True)
        total = size * s.size if gather else s.size
        if out.dtype != s.dtype or out.size != total:
            raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] is not {s.dtype}[{total}]")
        return s, out
    s, out = _agree(comm, check)
    count = s.size if gather else s.size // size
    return out, (s, out, count, _CODE_OF[s.dtype], fh, codec, mode, value, algorithm)


def allreduce(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None, abs=None,
              algorithm="auto"):
    """Every rank gets the reduction of all ranks' ``sendbuf`` (any shape)."""
    out, args = _allreduce_args(sendbuf, recvbuf, op, comm, codec, rel, abs, algorithm)
    return out, Report(**_mpi.allreduce(*args))


def reduce_scatter(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                   abs=None, algorithm="auto"):
    """Rank r gets block r of the reduction (MPI_Reduce_scatter_block): ``sendbuf`` holds
    size equal blocks; the result is 1-D (``sendbuf.size // size`` elements)."""
    out, args = _reduce_scatter_args(sendbuf, recvbuf, op, comm, codec, rel, abs, algorithm)
    return out, Report(**_mpi.reduce_scatter_block(*args))


def bcast(buf, root=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto"):
    """``buf`` (an array on every rank, of the same dtype and size) gets root's values."""
    b, args = _bcast_args(buf, root, comm, codec, rel, abs, algorithm)
    return b, Report(**_mpi.bcast(*args))


def allgather(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto"):
    """Every rank gets all ranks' ``sendbuf``: shape ``(size, *sendbuf.shape)`` when
    allocated here."""
    out, args = _exchange_args(sendbuf, recvbuf, True, comm, codec, rel, abs, algorithm)
    return out, Report(**_mpi.allgather(*args))


def alltoall(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
             algorithm="auto"):
    """MPI_Alltoall: ``sendbuf`` is size equal blocks in rank order (for example shape
    ``(size, ...)``); block d goes to rank d, and block s of the result (of sendbuf's shape
    when allocated here) came from rank s."""
    out, args = _exchange_args(sendbuf, recvbuf, False, comm, codec, rel, abs, algorithm)
    return out, Report(**_mpi.alltoall(*args))


class Request:
    """A nonblocking collective in flight (include/commpress/nonblocking.hpp). It holds the
    buffers until the operation completes. ``test()`` never blocks; ``wait()`` (the GIL
    released) returns the blocking call's ``(result, Report)`` or raises its commpress.Error,
    on every rank alike; a second ``wait()`` gives the same. A request dropped unfinished
    waits for its operation."""

    __slots__ = ("_native", "_result")

    def __init__(self, native, result):
        self._native, self._result = native, result

    def test(self) -> bool:
        return self._native.test()

    def wait(self):
        return self._result, Report(**self._native.wait())


def waitall(requests):
    """Waits for every request; returns their ``(result, Report)`` in order, or raises the
    first failure in the list's order once all have completed."""
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
    """Whether nonblocking operations progress while the caller computes: MPI initialised
    with MPI_THREAD_MULTIPLE (mpi4py's default). Below it they run when started."""
    return _mpi.progress_thread_available()


def iallreduce(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None, abs=None,
               algorithm="auto") -> Request:
    """allreduce, started: returns a Request."""
    out, args = _allreduce_args(sendbuf, recvbuf, op, comm, codec, rel, abs, algorithm)
    return Request(_mpi.iallreduce(*args), out)


def ireduce_scatter(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                    abs=None, algorithm="auto") -> Request:
    """reduce_scatter, started: returns a Request."""
    out, args = _reduce_scatter_args(sendbuf, recvbuf, op, comm, codec, rel, abs, algorithm)
    return Request(_mpi.ireduce_scatter_block(*args), out)


def ibcast(buf, root=0, *, comm=None, codec=None, rel=None, abs=None,
           algorithm="auto") -> Request:
    """bcast, started: returns a Request."""
    b, args = _bcast_args(buf, root, comm, codec, rel, abs, algorithm)
    return Request(_mpi.ibcast(*args), b)


def iallgather(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
               algorithm="auto") -> Request:
    """allgather, started: returns a Request."""
    out, args = _exchange_args(sendbuf, recvbuf, True, comm, codec, rel, abs, algorithm)
    return Request(_mpi.iallgather(*args), out)


def ialltoall(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto") -> Request:
    """alltoall, started: returns a Request."""
    out, args = _exchange_args(sendbuf, recvbuf, False, comm, codec, rel, abs, algorithm)
    return Request(_mpi.ialltoall(*args), out)


def send(buf, dest, tag=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto"):
    """Sends ``buf`` to ``dest``; the receiver passes an array of the same dtype and size and
    the same codec. Local argument errors raise here only (no agreement: one peer)."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)
    b = _array(buf, "buf")
    return Report(**_mpi.send(b, b.size, _CODE_OF[b.dtype], dest, tag, fh, codec, mode, value,
                              algorithm))


def recv(buf, source, tag=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto"):
    """Receives into ``buf`` (its dtype and size must be the sender's); returns (buf, Report)."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)
    b = _array(buf, "buf", writable=True)
    rep = _mpi.recv(b, b.size, _CODE_OF[b.dtype], source, tag, fh, codec, mode, value, algorithm)
    return b, Report(**rep)
