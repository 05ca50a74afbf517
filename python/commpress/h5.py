"""The HDF5 filter ``libH5Zcommpress.so`` for h5py, in the style of hdf5plugin.

    import h5py, commpress.h5
    f.create_dataset("t", data=field, chunks=(64, 64, 64), **commpress.h5.filter(rel=1e-4))

Other programs load the filter from ``HDF5_PLUGIN_PATH=$(python -c "import commpress.h5 as h;
print(h.PLUGIN_PATH)")``. :func:`register` makes it available to h5py in this process without
that variable. docs/hdf5.md has the filter id and the layout of its cd_values.
"""

from __future__ import annotations

import os
import struct

from ._errors import InvalidArgument
from ._paths import HDF5_PLUGIN_DIR

FILTER_ID = 305          # HDF5's range for filters not registered with The HDF Group (256-511)
PARAMS_VERSION = 1
PLUGIN_PATH = HDF5_PLUGIN_DIR
PLUGIN_FILE = os.path.join(HDF5_PLUGIN_DIR, "libH5Zcommpress.so")
_MAX_NAME = 32


def cd_values(codec: str = "szp", *, rel: float | None = None, abs: float | None = None,
              lossless: bool = False) -> tuple[int, ...]:
    """The filter's parameters: layout version, dtype (0: the filter takes it from the
    dataset), bound mode, the bound's f64 bits as two 32-bit halves, the codec name."""
    given = [(m, v) for m, v in ((2, rel), (1, abs)) if v is not None]
    if len(given) + bool(lossless) > 1:
        raise InvalidArgument("give one of rel=, abs= or lossless=True, not several")
    mode, value = given[0] if given else (0, 0.0)
    name = codec.encode("ascii")
    if not name or len(name) > _MAX_NAME or b"\0" in name:
        raise InvalidArgument(f"codec name {codec!r}: 1 to {_MAX_NAME} ASCII characters")
    lo, hi = struct.unpack("<II", struct.pack("<d", float(value)))
    padded = name + b"\0" * (-len(name) % 4)   # the filter reads up to a NUL or the last value
    words = struct.unpack(f"<{len(padded) // 4}I", padded)
    return (PARAMS_VERSION, 0, mode, lo, hi, *words)


def filter(codec: str = "szp", *, rel: float | None = None, abs: float | None = None,
           lossless: bool = False) -> dict:
    """Keyword arguments for h5py's ``create_dataset``: the filter id and its cd_values."""
    register()
    return {"compression": FILTER_ID,
            "compression_opts": cd_values(codec, rel=rel, abs=abs, lossless=lossless)}


def register() -> None:
    """Makes the filter available to this process's h5py (no-op where it already is)."""
    import h5py
    if h5py.h5z.filter_avail(FILTER_ID):
        return
    if not os.path.exists(PLUGIN_FILE):
        raise InvalidArgument(f"the HDF5 filter plugin was not built into this installation "
                              f"({PLUGIN_FILE}): HDF5's headers were missing at build time")
    h5py.h5pl.append(PLUGIN_PATH.encode())
    if not h5py.h5z.filter_avail(FILTER_ID):
        raise InvalidArgument(f"HDF5 did not load the commpress filter from {PLUGIN_PATH}")
