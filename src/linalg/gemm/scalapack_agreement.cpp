#include "linalg/gemm/scalapack_agreement.hpp"

#include <string>

#include "comm/session/private_comm.hpp"

namespace commpress::linalg::detail {

Status agree_identically(MPI_Comm comm, const std::vector<comm::detail::Field>& fields,
                         const Status& local) {
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  // One MIN-reduction gives every field's minimum and maximum and the lowest failing rank.
  const size_t k = fields.size();
  std::vector<int64_t> buf(2 * k + 1);
  for (size_t i = 0; i < k; ++i) {
    buf[i] = fields[i].value;
    buf[k + i] = -fields[i].value;
  }
  buf[2 * k] = local.ok() ? size : rank;
  COMMPRESS_MPI(
      MPI_Allreduce(MPI_IN_PLACE, buf.data(), int(buf.size()), MPI_INT64_T, MPI_MIN, comm));
  const int64_t bad = buf[2 * k];
  if (bad >= size) {
    for (size_t i = 0; i < k; ++i)
      if (buf[i] != -buf[k + i])
        return {ErrorCode::mismatch, std::string("processes disagree on ") + fields[i].name +
                                         ": values range from " + std::to_string(buf[i]) +
                                         " to " + std::to_string(-buf[k + i])};
    return {};
  }
  // The failing rank's message travels to everyone: length first, then the bytes.
  int64_t head[2] = {int64_t(local.code()), int64_t(local.message().size())};
  COMMPRESS_MPI(MPI_Bcast(head, 2, MPI_INT64_T, int(bad), comm));
  std::string message = local.message();
  message.resize(size_t(head[1]));
  COMMPRESS_MPI(MPI_Bcast(message.data(), int(head[1]), MPI_CHAR, int(bad), comm));
  return {static_cast<ErrorCode>(head[0]), message};
}

}  // namespace commpress::linalg::detail
