// The status a request of this library reports: what MPI would have said for the plain call
// (generalized requests fill it in their query; decoded receives after the fact).
#pragma once

#include <mpi.h>

#include <cstddef>

namespace commpress::pmpi {

// Source, tag, error, not cancelled, and `bytes` received (MPI_Get_count divides them by the
// type's size); MPI_STATUS_IGNORE is left alone.
void set_status(MPI_Status* status, int source, int tag, size_t bytes, int error);

// A message of this process to itself on a private duplicate of MPI_COMM_SELF: the
// communicator and a tag no concurrent use shares.
struct SelfMessage {
  MPI_Comm comm;
  int tag;
};
SelfMessage self_message();

}  // namespace commpress::pmpi
