"""python -m commpress runs the commpress tool shipped in the package, and what it writes
decodes in Python (and the other way round)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import commpress
from commpress._paths import TOOL

if not os.access(TOOL, os.X_OK):
    # a wheel built without MPI has no tool (docs/python.md); python -m commpress says so
    pytest.skip("this installation has no commpress tool (built without MPI)",
                allow_module_level=True)


def run(*args):
    return subprocess.run([sys.executable, "-m", "commpress", *args], capture_output=True,
                          text=True, timeout=120)


def test_codec_list_matches_the_library():
    r = run("codec", "list")
    assert r.returncode == 0, r.stderr
    for c in commpress.codecs():
        assert c["name"] in r.stdout


def test_tool_frames_and_python_agree(tmp_path, rng):
    a = rng.standard_normal(10000).astype(np.float32)
    a.tofile(tmp_path / "a.f32")
    r = run("codec", "compress", "--codec", "szp", "--rel", "1e-4", "--dtype", "f32",
            str(tmp_path / "a.f32"), str(tmp_path / "a.cpf"))
    assert r.returncode == 0, r.stderr
    frame = (tmp_path / "a.cpf").read_bytes()
    back = commpress.decompress(frame)
    assert np.abs(back - a).max() <= commpress.inspect(frame)["abs_bound"]
    buf = commpress.compress(a, "zstd-3")
    info = commpress.inspect(buf)
    (tmp_path / "b.cpf").write_bytes(buf[len(buf) - info["frame_size"]:])
    r = run("codec", "decompress", str(tmp_path / "b.cpf"), str(tmp_path / "b.f32"))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.fromfile(tmp_path / "b.f32", np.float32), a)


def test_usage_errors_exit_nonzero():
    assert run("no-such-command").returncode == 2
