"""commpress.mpi under mpirun at 2, 3 and 4 ranks (tests/python/mpi/collectives_ranks.py):
collectives equal mpi4py's results (lossless) or stay within the reported bound (lossy), and
arguments mismatched across ranks raise the same commpress.Error on every rank."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

# Not imported here: mpi4py.MPI would initialise MPI in pytest's process, and mpirun started
# from a process with MPI's environment fails.
if importlib.util.find_spec("mpi4py") is None or importlib.util.find_spec("commpress._mpi") is None:
    pytest.skip("commpress.mpi was not built (no mpi4py)", allow_module_level=True)
MPIRUN = shutil.which("mpirun")
RANKS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi",
                            "collectives_ranks.py")


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_collectives_under_mpirun(ranks):
    cmd = [MPIRUN, "--oversubscribe", "-np", str(ranks), "-x", "OMP_NUM_THREADS=1"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
    run = subprocess.run(cmd + [sys.executable, RANKS_SCRIPT], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"checks at {ranks} ranks: 0 failures" in run.stdout
