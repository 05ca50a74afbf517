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
of local arguments, which it agrees on first (one small extra allreduce per call).
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
from ._errors import InvalidArgument, error_from_code

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


def allreduce(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None, abs=None,
              algorithm="auto"):
    """Every rank gets the reduction of all ranks' ``sendbuf`` (any shape)."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)

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
    rep = _mpi.allreduce(s, out, out.size, _CODE_OF[out.dtype], _op_code(op), fh, codec, mode,
                         value, algorithm)
    return out, Report(**rep)


def reduce_scatter(sendbuf, recvbuf=None, *, op="sum", comm=None, codec=None, rel=None,
                   abs=None, algorithm="auto"):
    """Rank r gets block r of the reduction (MPI_Reduce_scatter_block): ``sendbuf`` holds
    size equal blocks; the result is 1-D (``sendbuf.size // size`` elements)."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)
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
    rep = _mpi.reduce_scatter_block(s, out, out.size, _CODE_OF[out.dtype], _op_code(op), fh,
                                    codec, mode, value, algorithm)
    return out, Report(**rep)


def bcast(buf, root=0, *, comm=None, codec=None, rel=None, abs=None, algorithm="auto"):
    """``buf`` (an array on every rank, of the same dtype and size) gets root's values."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)
    b = _agree(comm, lambda: _array(buf, "buf", writable=True))
    rep = _mpi.bcast(b, b.size, _CODE_OF[b.dtype], root, fh, codec, mode, value, algorithm)
    return b, Report(**rep)


def allgather(sendbuf, recvbuf=None, *, comm=None, codec=None, rel=None, abs=None,
              algorithm="auto"):
    """Every rank gets all ranks' ``sendbuf``: shape ``(size, *sendbuf.shape)`` when
    allocated here."""
    comm, fh, codec, mode, value, algorithm = _common(comm, codec, rel, abs, algorithm)
    size = comm.Get_size()

    def check():
        s = _array(sendbuf, "sendbuf")
        out = np.empty((size,) + s.shape, s.dtype) if recvbuf is None else \
            _array(recvbuf, "recvbuf", writable=True)
        if out.dtype != s.dtype or out.size != size * s.size:
            raise InvalidArgument(f"recvbuf {out.dtype}[{out.size}] is not {s.dtype}[{size * s.size}]")
        return s, out
    s, out = _agree(comm, check)
    rep = _mpi.allgather(s, out, s.size, _CODE_OF[s.dtype], fh, codec, mode, value, algorithm)
    return out, Report(**rep)


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
