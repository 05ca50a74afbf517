#include "comm/transport/frame_bcast.hpp"

#include <string>

#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"

namespace commpress::comm::detail {

Status PendingBcast::start(Buffer& bytes, BcastLength length, size_t capacity, uint64_t raw,
                           int root, MPI_Comm comm, bool blocking, Traffic& traffic) {
  req_ = MPI_REQUEST_NULL;
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  if (size == 1) return {};
  uint64_t n = bytes.size();
  if (length == BcastLength::sent) {
    COMMPRESS_MPI(collective_yielding(
        [&] { return MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm); },
        [&](MPI_Request* req) { return MPI_Ibcast(&n, 1, MPI_UINT64_T, root, comm, req); }));
    if (n > capacity)  // the same length everywhere, so every rank refuses alike
      return {ErrorCode::internal, "broadcast message of " + std::to_string(n) +
                                       " bytes exceeds its buffer of " + std::to_string(capacity)};
    bytes.resize(size_t(n));
  }
  if (rank == root) traffic.add(raw, n + (length == BcastLength::sent ? sizeof(uint64_t) : 0));
  if (n == 0) return {};  // known to every rank, so all skip alike
  if (blocking) {
    COMMPRESS_MPI(collective_yielding(
        [&] { return MPI_Bcast(bytes.data(), int(n), MPI_BYTE, root, comm); },
        [&](MPI_Request* req) {
          return MPI_Ibcast(bytes.data(), int(n), MPI_BYTE, root, comm, req);
        }));
    return {};
  }
  COMMPRESS_MPI(MPI_Ibcast(bytes.data(), int(n), MPI_BYTE, root, comm, &req_));
  return {};
}

Status PendingBcast::progress() {
  if (req_ == MPI_REQUEST_NULL) return {};
  int done = 0;
  COMMPRESS_MPI(MPI_Test(&req_, &done, MPI_STATUS_IGNORE));
  return {};
}

Status PendingBcast::finish() {
  if (req_ != MPI_REQUEST_NULL) COMMPRESS_MPI(waitall_yielding(1, &req_, MPI_STATUS_IGNORE));
  return {};
}

Status bcast_frame(Buffer& bytes, BcastLength length, size_t capacity, uint64_t raw, int root,
                   MPI_Comm comm, Traffic& traffic) {
  PendingBcast b;
  COMMPRESS_RETURN_IF_ERROR(b.start(bytes, length, capacity, raw, root, comm, true, traffic));
  return b.finish();
}

}  // namespace commpress::comm::detail
