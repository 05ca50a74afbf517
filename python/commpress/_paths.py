"""Where the wheel put the native parts: the prefix is the package folder itself."""

from __future__ import annotations

import os

PREFIX = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(PREFIX, "bin", "commpress")
HDF5_PLUGIN_DIR = os.path.join(PREFIX, "lib", "hdf5", "plugin")
