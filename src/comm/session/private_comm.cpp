#include "comm/session/private_comm.hpp"
#include "comm/session/comm_dup.hpp"
#include "comm/session/comm_keyval.hpp"

#include <string>

namespace commpress::comm::detail {

namespace {

int delete_dup(MPI_Comm, int, void* attr, void*) {
  auto* dup = static_cast<MPI_Comm*>(attr);
  MPI_Comm_free(dup);
  delete dup;
  return MPI_SUCCESS;
}

int keyval() {
  static int key = new_comm_keyval(delete_dup);
  return key;
}

}  // namespace

Status mpi_status(int rc, const char* call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return {ErrorCode::mpi, std::string(call) + " failed: " + std::string(text, len)};
}

Result<MPI_Comm> private_comm(MPI_Comm comm) {
  void* attr = nullptr;
  int found = 0;
  COMMPRESS_MPI(MPI_Comm_get_attr(comm, keyval(), &attr, &found));
  if (found) return *static_cast<MPI_Comm*>(attr);
  auto* dup = new MPI_Comm;
  int rc = comm_dup(comm, dup);
  if (rc != MPI_SUCCESS) {
    delete dup;
    return mpi_status(rc, "MPI_Comm_dup");
  }
  // Failures on commpress's own traffic come back as Status values instead of aborting.
  rc = MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) {
    MPI_Comm_free(dup);
    delete dup;
    return mpi_status(rc, "MPI_Comm_set_errhandler");
  }
  COMMPRESS_MPI(MPI_Comm_set_attr(comm, keyval(), dup));
  return *dup;
}

}  // namespace commpress::comm::detail
