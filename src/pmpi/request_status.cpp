#include "pmpi/request_status.hpp"

#include <atomic>

namespace commpress::pmpi {

void set_status(MPI_Status* status, int source, int tag, size_t bytes, int error) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  PMPI_Status_set_elements_x(status, MPI_BYTE, MPI_Count(bytes));
  PMPI_Status_set_cancelled(status, 0);
}

SelfMessage self_message() {
  static MPI_Comm self = [] {
    MPI_Comm c;
    PMPI_Comm_dup(MPI_COMM_SELF, &c);
    return c;
  }();
  static std::atomic<int> next_tag{0};
  return {self, next_tag.fetch_add(1, std::memory_order_relaxed) & 0x7fff};
}

}  // namespace commpress::pmpi
