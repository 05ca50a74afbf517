// commpress's collectives run on a private duplicate of the caller's communicator, so their
// point-to-point traffic can never match (or be matched by) the caller's own messages.
#pragma once

#include <mpi.h>

#include "commpress/status.hpp"

namespace commpress::comm::detail {

// The duplicate of comm, created on first use (collectively: call it only from operations
// every rank of comm enters) and freed with comm.
Result<MPI_Comm> private_comm(MPI_Comm comm);

// Turns an MPI error code into a Status naming the call.
Status mpi_status(int rc, const char* call);

}  // namespace commpress::comm::detail

#define COMMPRESS_MPI(call)                                                        \
  do {                                                                             \
    int commpress_rc_ = (call);                                                    \
    if (commpress_rc_ != MPI_SUCCESS)                                              \
      return ::commpress::comm::detail::mpi_status(commpress_rc_, #call);          \
  } while (0)
