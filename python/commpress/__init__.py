"""commpress: error-bounded lossy and lossless compression of numeric arrays.

    import numpy as np, commpress
    buf = commpress.compress(field, "szp", rel=1e-4)     # bytes
    back = commpress.decompress(buf)                     # same dtype and shape
    commpress.inspect(buf)["abs_bound"]                  # |field - back| <= this

``commpress.numcodecs.Commpress`` is the numcodecs/zarr codec, ``commpress.h5`` the HDF5
filter's helper for h5py; ``python -m commpress`` runs the command-line tool. Errors are
``commpress.Error`` subclasses carrying the library's code and message.
"""

from . import _codec
from ._array import codecs, compress, decompress, inspect
from ._errors import (Capacity, ChecksumMismatch, CorruptFrame, Error, InternalError,
                      InvalidArgument, IOFailure, Mismatch, MPIFailure, Overflow, Truncated,
                      Unsupported)

__version__ = _codec.version

__all__ = ["compress", "decompress", "inspect", "codecs", "Error", "InvalidArgument",
           "Unsupported", "CorruptFrame", "Truncated", "ChecksumMismatch", "Capacity", "Mismatch",
           "Overflow", "IOFailure", "MPIFailure", "InternalError", "__version__"]
