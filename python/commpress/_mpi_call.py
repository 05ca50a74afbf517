"""One call of commpress._mpi: its arguments as this rank's own checks leave them, and how a
rank whose checks failed still fails together with the others without a round trip of its
own (commpress.mpi, docs/python.md#errors-across-ranks).

The library agrees on every collective's arguments in one allreduce that also carries each
rank's local verdict, so a bad argument on one rank fails the operation on every rank and
none waits. What only Python can check (dtypes, contiguity, a ``recvbuf`` of the wrong size)
joins that agreement the same way: the failing rank makes the same call with null buffers and
a non-zero count, which the library refuses there, and so on every rank; that rank then
raises its own error in the class every rank got. A nonblocking start therefore does not
synchronise the ranks, and a blocking call costs no extra collective.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from . import _mpi
from ._array import _CODE_OF, _bound
from ._errors import Error, InvalidArgument, error_from_code

_OPS = {"sum": 0, "min": 1, "max": 2, "prod": 3}
_MPI_OPS = ((MPI.SUM, 0), (MPI.MIN, 1), (MPI.MAX, 2), (MPI.PROD, 3))   # MPI.Op is unhashable
_FLOAT64 = _CODE_OF[np.dtype(np.float64)]


def op_code(op):
    if isinstance(op, str) and op.lower() in _OPS:
        return _OPS[op.lower()]
    for mpi_op, code in _MPI_OPS:
        if op == mpi_op:
            return code
    raise InvalidArgument(f"op {op!r}: one of sum, min, max, prod (or MPI.SUM...)")


def as_int(value, what, low=-2**31, high=2**31 - 1):
    """``value`` as an int in [low, high] (default: a C int, as MPI's ranks and tags)."""
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{what} {value!r} is not an integer") from None
    if not low <= v <= high:
        raise InvalidArgument(f"{what} {v} is outside [{low}, {high}]")
    return v


class Call:
    """What commpress._mpi gets: ``send``/``recv`` (arrays, or None), ``count``, ``dtype``
    (code), ``op`` (code), ``root``, ``peer``, ``tag``, ``layout`` (alltoallv's counts and
    displacements), the options, and ``result``, what the operation returns. The defaults
    are the guesses a failed rank calls with: the closer they are to the other ranks'
    arguments, the more precisely their error reads ("rank 1 failed" rather than a
    disagreement on a field)."""

    def __init__(self, comm, codec, algorithm, chunk_bytes):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        if not isinstance(self.comm, MPI.Comm):
            raise TypeError(f"comm must be an mpi4py.MPI.Comm, not {type(self.comm).__name__}")
        self.fh = self.comm.py2f()
        self.size = self.comm.Get_size()
        self.send = self.recv = self.result = self.error = None
        self.count, self.dtype, self.op, self.root, self.peer, self.tag = 1, _FLOAT64, 0, 0, 0, 0
        self.layout = None
        self.codec, self.mode, self.value, self.algorithm = "auto", 0, 0.0, "auto"
        self.chunk_bytes = 0
        self._given = codec, algorithm, chunk_bytes

    def options(self, rel, abs_):
        codec, algorithm, chunk_bytes = self._given
        if codec is not None:
            if not isinstance(codec, str):
                raise InvalidArgument(f"codec {codec!r} is not a name")
            self.codec = codec
        try:
            self.mode, self.value = _bound(rel, abs_, False)
        except InvalidArgument:
            raise
        except (TypeError, ValueError) as e:   # a bound that is not a number
            raise InvalidArgument(f"bound: {e}") from None
        if not isinstance(algorithm, str):
            raise InvalidArgument(f"algorithm {algorithm!r} is not a name")
        _mpi.check_algorithm(algorithm)
        self.algorithm = algorithm
        self.chunk_bytes = as_int(chunk_bytes, "chunk_bytes", 0, 2**63 - 1)

    def opts(self):
        """The options as commpress._mpi takes them, one tuple: codec, bound mode, bound
        value, algorithm, chunk_bytes."""
        return self.codec, self.mode, self.value, self.algorithm, self.chunk_bytes

    def array(self, buf, what, writable=False, per_rank=None):
        """``buf`` as a C-contiguous array of a dtype the library takes. With ``per_rank`` (the
        call's input), first records its element count (divided by ``per_rank``) and dtype
        as the guesses."""
        try:
            a = np.asarray(buf)
        except (TypeError, ValueError) as e:
            raise InvalidArgument(f"{what}: not an array ({e})") from None
        if per_rank is not None:
            self.count = a.size // per_rank
            self.dtype = _CODE_OF.get(a.dtype, self.dtype)
        if a.dtype not in _CODE_OF or not a.dtype.isnative:
            raise InvalidArgument(f"{what}: dtype {a.dtype} is not a native float32, float64, "
                                  "int32, int64 or uint8")
        if not a.flags.c_contiguous or (writable and not a.flags.writeable):
            raise InvalidArgument(f"{what} must be C-contiguous"
                                  f"{' and writeable' if writable else ''}")
        return a

    def fail(self, error):
        """This rank's checks failed: the call goes on with null buffers and at least one
        element (one per rank for alltoallv), which the library refuses on every rank."""
        self.error = error
        self.send = self.recv = None
        self.count = max(self.count, 1)
        self.layout = ([1] * self.size, [0] * self.size, [1] * self.size, [0] * self.size)


def prepare(plan, comm, codec, rel, abs_, algorithm, chunk_bytes) -> Call:
    """Runs this rank's checks (``plan`` fills the Call); a failure is kept in ``error``."""
    call = Call(comm, codec, algorithm, chunk_bytes)
    try:
        call.options(rel, abs_)
        plan(call)
    except InvalidArgument as e:
        call.fail(e)
    return call


def settle(local_error, operation):
    """``operation()``'s value; on a rank whose own checks failed (``local_error``) its
    error instead, in the class the library gave every rank (its message added where it is
    not just the refusal of the null buffers)."""
    try:
        value = operation()
    except Error as e:
        if local_error is None:
            raise
        if isinstance(e, InvalidArgument):
            raise local_error.with_traceback(None) from None
        raise error_from_code(e.code, f"{local_error.message}; {e.message}") from None
    if local_error is not None:
        raise local_error.with_traceback(None)
    return value
