"""What the scripts mpirun runs for tests/python share: the world communicator, `check`,
which records a failed check, and `finish`, which prints every rank's failures on rank 0 with
the count the test looks for and exits non-zero on every rank if any failed."""

import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def finish(label):
    everyone = comm.allgather(failures)
    if rank == 0:
        for r, f in enumerate(everyone):
            for what in f:
                print(f"rank {r}: {what}", file=sys.stderr)
        print(f"{label} checks at {size} ranks: {sum(map(len, everyone))} failures")
    sys.exit(1 if any(everyone) else 0)
