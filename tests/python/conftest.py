"""Shared helpers for the Python package's tests (pytest tests/python)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import commpress


def bits(a):
    """The elements' bit patterns (so NaN payloads and -0.0 compare exactly)."""
    return np.ascontiguousarray(a).reshape(-1).view(f"u{a.dtype.itemsize}")


def assert_within(orig, back, buf):
    """back has orig's dtype and shape and equals it within the frame's guaranteed absolute
    bound; non-finite values come back bit for bit, lossless frames entirely so."""
    info = commpress.inspect(buf)
    assert back.dtype == orig.dtype and back.shape == orig.shape
    if info["abs_bound"] == 0:
        assert np.array_equal(bits(orig), bits(back))
        return info
    o = np.ascontiguousarray(orig).reshape(-1)
    b = back.reshape(-1)
    finite = np.isfinite(o)
    assert np.array_equal(bits(o)[~finite], bits(b)[~finite])
    err = np.abs(o[finite].astype(np.float64) - b[finite].astype(np.float64))
    assert err.size == 0 or err.max() <= info["abs_bound"]
    return info


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def smooth_field(rng, shape, dtype):
    grids = np.meshgrid(*[np.linspace(0, 3, s) for s in shape], indexing="ij")
    f = sum(np.sin(g * (i + 1)) for i, g in enumerate(grids)) + 1e-3 * rng.standard_normal(shape)
    return f.astype(dtype)


MPIRUN = shutil.which("mpirun")


def mpirun(ranks, script, *args, env=None):
    """Runs tests/python/mpi/<script> under mpirun at ``ranks`` ranks (``env``: variables
    added to the ranks' environment); returns its stdout and fails the test if any rank
    failed. pytest's own process never initialises MPI (a mpirun started from a process with
    MPI's environment fails)."""
    cmd = [MPIRUN, "--oversubscribe", "-np", str(ranks), "-x", "OMP_NUM_THREADS=1"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi", script)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))},
           **(env or {})}
    run = subprocess.run(cmd + [sys.executable, path, *args], capture_output=True, text=True,
                         timeout=600, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout
