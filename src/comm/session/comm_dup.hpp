// MPI_Comm_dup as the library calls it. SimGrid's SMPI runs MPI_Comm_dup without ending the
// caller's measured computation (it does end it around MPI_Comm_split), so a rank held in the
// duplicate kept its CPU timer running while the other simulated ranks ran on the same host
// thread, and was charged their CPU time as its own compute, a charge that grew with the ranks
// (docs/smpi.md, "Communicator duplicates"). The SMPI build ends the measurement around the
// call; the real build calls MPI_Comm_dup.
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
