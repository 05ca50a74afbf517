"""The HDF5 filter: h5py writes a chunked dataset through it; a fresh Python process that only
sets HDF5_PLUGIN_PATH (and never imports commpress) reads it back within bound."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import commpress
from conftest import smooth_field

h5py = pytest.importorskip("h5py")
import commpress.h5  # noqa: E402

READER = """
import json, sys
import h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f["field"]
    a = d[...]
    print(json.dumps({"filters": list(d._filters.keys()), "dtype": str(a.dtype),
                      "shape": list(a.shape)}))
np.save(sys.argv[2], a)
"""


@pytest.mark.parametrize("dtype,bound", [(np.float32, {"rel": 1e-4}), (np.float64, {"abs": 1e-6}),
                                         (np.float32, {"lossless": True})])
def test_h5py_writes_and_a_fresh_process_reads_back(tmp_path, rng, dtype, bound):
    a = smooth_field(rng, (48, 40, 36), dtype)
    path = tmp_path / "field.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("field", data=a, chunks=(16, 40, 36), **commpress.h5.filter("szp", **bound))
        stored = f["field"].id.get_storage_size()
    if "lossless" not in bound:
        assert stored < a.nbytes
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["HDF5_PLUGIN_PATH"] = commpress.h5.PLUGIN_PATH
    out = tmp_path / "back.npy"
    run = subprocess.run([sys.executable, "-c", READER, str(path), str(out)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    meta = json.loads(run.stdout)
    assert meta["filters"] == [str(commpress.h5.FILTER_ID)]
    back = np.load(out)
    assert back.dtype == a.dtype and back.shape == a.shape
    err = np.abs(back.astype(np.float64) - a)
    if "lossless" in bound:
        assert np.array_equal(back, a)
    elif "abs" in bound:
        assert err.max() <= bound["abs"]
    else:   # REL resolves per chunk: within rel x the whole range, the loosest chunk's bound
        assert err.max() <= bound["rel"] * float(a.max() - a.min())
        assert err.max() > 0


def test_fresh_process_without_the_plugin_path_cannot_read(tmp_path, rng):
    a = smooth_field(rng, (16, 16), np.float32)
    path = tmp_path / "field.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("field", data=a, chunks=(8, 16), **commpress.h5.filter(rel=1e-3))
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    env["HDF5_PLUGIN_PATH"] = str(tmp_path / "empty")
    run = subprocess.run([sys.executable, "-c", READER, str(path), str(tmp_path / "x.npy")],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0


def test_filter_refuses_bad_arguments(tmp_path):
    with pytest.raises(commpress.Error):
        commpress.h5.filter("szp", rel=1e-3, abs=1e-3)
    with pytest.raises(commpress.Error):
        commpress.h5.filter("x" * 40, rel=1e-3)
    with h5py.File(tmp_path / "bad.h5", "w") as f:
        with pytest.raises(Exception):      # set_local refuses: no such codec
            f.create_dataset("a", shape=(10,), chunks=(5,), dtype="f4",
                             **commpress.h5.filter("no-such", rel=1e-3))
        with pytest.raises(Exception):      # set_local refuses: complex elements
            f.create_dataset("c", shape=(10,), chunks=(5,), dtype="c8",
                             **commpress.h5.filter("szp", rel=1e-3))
