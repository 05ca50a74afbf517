"""commpress.Error and its subclasses, one per C error code (commpress::ErrorCode, docs/format.md#errors)."""

from __future__ import annotations


class Error(Exception):
    """A commpress call failed. ``code`` is the C library's error code, ``name`` its name
    (``"corrupt_frame"``...) and ``message`` the library's message."""

    code = -1
    name = "error"

    def __init__(self, message: str, code: int | None = None):
        if code is not None:
            self.code = code
        self.message = message
        super().__init__(f"{self.name}: {message}")


class InvalidArgument(Error, ValueError):
    code, name = 1, "invalid_argument"


class Unsupported(Error, ValueError):
    code, name = 2, "unsupported"


class CorruptFrame(Error, ValueError):
    code, name = 3, "corrupt_frame"


class Truncated(Error, ValueError):
    code, name = 4, "truncated"


class ChecksumMismatch(Error, ValueError):
    code, name = 5, "checksum_mismatch"


class Capacity(Error, ValueError):
    code, name = 6, "capacity"


class Mismatch(Error, ValueError):
    code, name = 7, "mismatch"


class Overflow(Error, OverflowError):
    code, name = 8, "overflow"


class IOFailure(Error, OSError):
    code, name = 9, "io"


class MPIFailure(Error):
    code, name = 10, "mpi"


class InternalError(Error):
    code, name = 11, "internal"


_BY_CODE = {cls.code: cls for cls in (InvalidArgument, Unsupported, CorruptFrame, Truncated,
                                      ChecksumMismatch, Capacity, Mismatch, Overflow, IOFailure,
                                      MPIFailure, InternalError)}


def error_from_code(code: int, message: str) -> Error:
    """The exception for a C error code (the extension module raises through this)."""
    cls = _BY_CODE.get(code)
    return cls(message) if cls is not None else Error(message, code)
