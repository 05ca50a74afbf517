"""commpress.mpi under mpirun (the scripts in tests/python/mpi at 1 to 4 ranks): collectives,
nonblocking and persistent requests equal mpi4py's results (lossless) or stay within the
reported bound (lossy), and arguments mismatched across ranks, or refused by one rank's own
checks, raise the same commpress.Error class on every rank."""

import importlib.util

import pytest
from conftest import MPIRUN, mpirun

# Not imported here: mpi4py.MPI would initialise MPI in pytest's process (conftest.mpirun).
if importlib.util.find_spec("mpi4py") is None or importlib.util.find_spec("commpress._mpi") is None:
    pytest.skip("commpress.mpi was not built (no mpi4py)", allow_module_level=True)


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_collectives_under_mpirun(ranks):
    assert f"checks at {ranks} ranks: 0 failures" in mpirun(ranks, "collectives_ranks.py")


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_alltoall_and_nonblocking_under_mpirun(ranks):
    """tests/python/mpi/nonblocking_ranks.py: alltoall equals mpi4py's Alltoall (lossless) or
    stays within bound; the nonblocking forms equal the blocking ones, completed in reverse
    order; mismatches raise on every rank at wait()."""
    out = mpirun(ranks, "nonblocking_ranks.py")
    assert f"nonblocking checks at {ranks} ranks: 0 failures" in out
    assert "progress thread: True" in out   # mpi4py's default MPI_THREAD_MULTIPLE


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
def test_nonblocking_without_thread_multiple():
    """Below MPI_THREAD_MULTIPLE the operations run when started: the same results."""
    out = mpirun(3, "nonblocking_ranks.py", env={"MPI4PY_RC_THREAD_LEVEL": "single"})
    assert "nonblocking checks at 3 ranks: 0 failures" in out
    assert "progress thread: False" in out


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun")
@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_requests_under_mpirun(ranks):
    """tests/python/mpi/requests_ranks.py: isend/irecv, alltoallv/ialltoallv (equal to
    mpi4py's Alltoallv) and allreduce_init; requests of every kind in flight completed in
    rank-dependent orders; mismatches and one rank's refused arguments raising on every rank;
    a nonblocking start not waiting for the other ranks."""
    assert f"requests checks at {ranks} ranks: 0 failures" in mpirun(ranks, "requests_ranks.py")
