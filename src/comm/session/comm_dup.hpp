// MPI_Comm_dup as the library calls it. SimGrid's SMPI (3.32) runs MPI_Comm_dup as a bcast and
// a barrier without ending the caller's measured computation (it does end it around
// MPI_Comm_split), so every CPU second the other simulated ranks spend until the duplicate
// exists would be charged to the caller as its own compute, once per rank, and grow as the
// ranks do (docs/smpi.md, "Communicator duplicates"). The SMPI build ends the measurement
// around the call, as SMPI does around MPI_Comm_split; the real build calls MPI_Comm_dup.
#pragma once

#include <mpi.h>
#ifdef COMMPRESS_SMPI
#include <smpi/smpi.h>
#endif

namespace commpress::comm::detail {

inline int comm_dup(MPI_Comm comm, MPI_Comm* out) {
#ifdef COMMPRESS_SMPI
  smpi_bench_end();
  const int rc = MPI_Comm_dup(comm, out);
  smpi_bench_begin();
  return rc;
#else
  return MPI_Comm_dup(comm, out);
#endif
}

}  // namespace commpress::comm::detail
