"""commpress.torch (the DDP communication hook) under mpirun at 2 ranks on gloo
(tests/python/mpi/ddp_ranks.py): the bound on a bucket, warm-up iterations, a state differing
across ranks, and a small model's training loss within 1% of DDP's own allreduce."""

import importlib.util

import pytest
from conftest import MPIRUN, mpirun

if importlib.util.find_spec("commpress._mpi") is None:
    pytest.skip("commpress.mpi was not built (no mpi4py)", allow_module_level=True)
if importlib.util.find_spec("torch") is None:
    pytest.skip("PyTorch is not installed (scripts/setup installs it)", allow_module_level=True)


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
def test_ddp_hook_under_mpirun():
    out = mpirun(2, "ddp_ranks.py")
    print(out)   # the training's final losses (pytest -s shows them)
    assert "ddp checks at 2 ranks: 0 failures" in out
