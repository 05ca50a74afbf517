"""Arrays in, bytes out: compress, decompress, inspect, codecs.

The bytes are a small container holding the array's shape and then one commpress frame
(docs/python.md, "The array container"); decompress also takes a bare frame (from C++, the C
API or the command-line tool) and returns it as a 1-D array.
"""

from __future__ import annotations

import struct

import numpy as np

from . import _codec
from ._errors import CorruptFrame, InvalidArgument, error_from_code

_codec.set_error_factory(error_from_code)

CONTAINER_MAGIC = b"CPAR"
CONTAINER_VERSION = 1
FRAME_MAGIC = b"CPRF"
_HEAD = struct.Struct("<4sBBH")   # magic, version, ndim, reserved (0)
_MAX_NDIM = 64

# numpy dtype <-> frame dtype code (include/commpress/codec.hpp, Dtype)
_CODE_OF = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
            np.dtype(np.int64): 4, np.dtype(np.uint8): 5}
_DTYPE_OF = {code: dt for dt, code in _CODE_OF.items()}


def _bound(rel, abs_, lossless):
    given = [(mode, v) for mode, v in ((2, rel), (1, abs_)) if v is not None]
    if lossless:
        if given:
            raise InvalidArgument("give one of rel=, abs= or lossless=True, not several")
        return 0, 0.0
    if len(given) > 1:
        raise InvalidArgument("give one of rel=, abs= or lossless=True, not several")
    if not given:
        return 0, 0.0
    mode, value = given[0]
    return mode, float(value)


def _as_native_contiguous(arr) -> np.ndarray:
    a = np.asarray(arr)
    if a.dtype.kind not in "fiu" or a.dtype.newbyteorder("=") not in _CODE_OF:
        raise InvalidArgument(f"dtype {a.dtype} is not float32, float64, int32, int64 or uint8")
    native = a.dtype.newbyteorder("=")
    # Non-contiguous, Fortran-ordered or byte-swapped input is copied into a C-ordered native
    # array: the container records the shape, and decompress returns a C-ordered array.
    return np.asarray(a, dtype=native, order="C")   # keeps 0-d arrays 0-d


def compress(arr, codec: str = "szp", *, rel: float | None = None, abs: float | None = None,
             lossless: bool = False) -> bytes:
    """Compress an array (any shape; float32/float64, and int32/int64/uint8 for codecs that take
    them) into bytes that :func:`decompress` turns back into an array of the same dtype and
    shape. One of ``rel`` (a fraction of the array's finite value range), ``abs`` (an absolute
    bound) or ``lossless=True``; a lossless codec needs none."""
    mode, value = _bound(rel, abs, lossless)
    a = _as_native_contiguous(arr)
    if a.ndim > _MAX_NDIM:
        raise InvalidArgument(f"{a.ndim} dimensions: at most {_MAX_NDIM}")
    prefix = _HEAD.pack(CONTAINER_MAGIC, CONTAINER_VERSION, a.ndim, 0) + \
        struct.pack(f"<{a.ndim}Q", *a.shape)
    return _codec.compress(a, _CODE_OF[a.dtype], codec, mode, value, prefix, list(a.shape))


def _split(buf):
    """(shape or None for a bare frame, the frame as a memoryview)."""
    try:
        mv = memoryview(buf).cast("B")
    except TypeError as e:
        raise InvalidArgument(f"not a C-contiguous bytes-like object: {e}") from None
    head = bytes(mv[:4])
    if head == CONTAINER_MAGIC:
        if len(mv) < _HEAD.size:
            raise CorruptFrame(f"array container of {len(mv)} bytes is shorter than its header")
        _, version, ndim, reserved = _HEAD.unpack_from(mv)
        if version != CONTAINER_VERSION or reserved != 0 or ndim > _MAX_NDIM:
            raise CorruptFrame(f"array container version {version}, ndim {ndim}, reserved "
                               f"{reserved}: not a version-{CONTAINER_VERSION} container")
        end = _HEAD.size + 8 * ndim
        if len(mv) < end:
            raise CorruptFrame(f"array container of {len(mv)} bytes is shorter than its shape")
        return struct.unpack_from(f"<{ndim}Q", mv, _HEAD.size), mv[end:]
    return None, mv


def _info(frame, shape) -> dict:
    info = _codec.inspect(frame)   # raises for anything that is not a whole, valid frame
    if shape is not None:
        n = 1
        for s in shape:
            n *= s
        if n != info["count"]:
            raise CorruptFrame(f"the container's shape {tuple(shape)} holds {n} elements, "
                               f"its frame {info['count']}")
    return info


def decompress(buf, out: np.ndarray | None = None) -> np.ndarray:
    """The array that :func:`compress` compressed (dtype and shape as recorded; a bare frame
    gives a 1-D array). With ``out``, decode into it: a writeable C-contiguous ndarray of the
    recorded dtype and the same number of elements (any shape); it is returned."""
    shape, frame = _split(buf)
    if out is None:
        info = _info(frame, shape)
        dtype = _DTYPE_OF[_CODE_OF_NAME[info["dtype"]]]
        out = np.empty(shape if shape is not None else (info["count"],), dtype=dtype)
        _codec.decompress_into(frame, out, _CODE_OF[dtype])
        return out
    if not isinstance(out, np.ndarray):
        raise InvalidArgument(f"out must be a numpy.ndarray, not {type(out).__name__}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise InvalidArgument("out must be writeable and C-contiguous")
    code = _CODE_OF.get(out.dtype)
    if code is None or not out.dtype.isnative:
        raise InvalidArgument(f"out's dtype {out.dtype} is not a native dtype commpress codes")
    if shape is not None:
        n = 1
        for s in shape:
            n *= s
        if n != out.size:
            raise InvalidArgument(f"out holds {out.size} elements, the array {n} {tuple(shape)}")
    # The library checks the frame's count and dtype against out's (mismatch otherwise).
    _codec.decompress_into(frame, out, code)
    return out


_CODE_OF_NAME = {"f32": 1, "f64": 2, "i32": 3, "i64": 4, "u8": 5}


def inspect(buf) -> dict:
    """What the header says: codec, dtype, count, bound mode, requested and guaranteed absolute
    bound, sizes, checksum; ``shape`` (None for a bare frame). Verifies the whole frame."""
    shape, frame = _split(buf)
    info = _info(frame, shape)
    info["shape"] = tuple(shape) if shape is not None else None
    info["container"] = shape is not None
    return info


def codecs() -> list[dict]:
    """Every codec: name, id, lossy, the dtypes it codes, description."""
    return _codec.codecs()
