// Keys of the attributes commpress keeps with a communicator (its private duplicate, node
// layout, probed profile, ...). A duplicate of the communicator does not inherit them: it gets
// its own when first used, so nothing is shared between the two.
#pragma once

#include <mpi.h>

namespace commpress::comm::detail {

// A new key whose attribute on_delete releases when the communicator is freed.
inline int new_comm_keyval(MPI_Comm_delete_attr_function* on_delete = MPI_COMM_NULL_DELETE_FN) {
  int k = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &k, nullptr);
  return k;
}

}  // namespace commpress::comm::detail
