#include "linalg/gemm/shift_exchange.hpp"

#include <atomic>
#include <climits>
#include <string>

#include "comm/session/private_comm.hpp"

namespace commpress::linalg::detail {

namespace {

Status received_size(const MPI_Status& st, EncodedBlock& in) {
  int count = 0;
  COMMPRESS_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
  if (count < 0 || size_t(count) > in.bytes.size())
    return {ErrorCode::internal, "received block of " + std::to_string(count) +
                                     " bytes exceeds its buffer of " +
                                     std::to_string(in.bytes.size())};
  in.size = size_t(count);
  return {};
}

std::atomic<int> g_fail_countdown{0};

// The failure fail_exchange_for_testing() asked for, on the exchange it named.
Status injected_failure() {
  int left = g_fail_countdown.load();
  while (left > 0 && !g_fail_countdown.compare_exchange_weak(left, left - 1)) {
  }
  if (left != 1) return {};
  return {ErrorCode::mpi, "block exchange failed (injected by fail_exchange_for_testing)"};
}

// The received size, then any injected failure.
Status completed(const MPI_Status& st, EncodedBlock& in) {
  COMMPRESS_RETURN_IF_ERROR(received_size(st, in));
  return injected_failure();
}

}  // namespace

void fail_exchange_for_testing(int nth) { g_fail_countdown = nth > 0 ? nth : 0; }

BlockExchange::~BlockExchange() {
  if (posted()) MPI_Waitall(2, requests_, MPI_STATUSES_IGNORE);
}

Status BlockExchange::post(MPI_Comm comm, int dest, int src, int tag, const EncodedBlock& out,
                           EncodedBlock& in) {
  COMMPRESS_MPI(MPI_Irecv(in.bytes.data(), int(in.bytes.size()), MPI_BYTE, src, tag, comm,
                          &requests_[0]));
  COMMPRESS_MPI(MPI_Isend(out.bytes.data(), int(out.size), MPI_BYTE, dest, tag, comm,
                          &requests_[1]));
  in_ = &in;
  complete_ = false;
  return {};
}

Status BlockExchange::progress() {
  if (!posted() || complete_) return {};
  int flag = 0;
  COMMPRESS_MPI(MPI_Testall(2, requests_, &flag, statuses_));
  complete_ = flag != 0;
  return {};
}

Status BlockExchange::wait() {
  EncodedBlock* in = in_;
  in_ = nullptr;
  if (!complete_) COMMPRESS_MPI(MPI_Waitall(2, requests_, statuses_));
  complete_ = false;
  return completed(statuses_[0], *in);
}

Status exchange_blocking(MPI_Comm comm, int dest, int src, int tag, const EncodedBlock& out,
                         EncodedBlock& in) {
  MPI_Status st;
  COMMPRESS_MPI(MPI_Sendrecv(out.bytes.data(), int(out.size), MPI_BYTE, dest, tag,
                             in.bytes.data(), int(in.bytes.size()), MPI_BYTE, src, tag, comm,
                             &st));
  return completed(st, in);
}

Status bcast_block(MPI_Comm comm, int root, EncodedBlock& block) {
  uint64_t size = block.size;
  COMMPRESS_MPI(MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm));
  if (size > block.bytes.size())  // same sizes everywhere, so every rank agrees
    return {ErrorCode::internal, "broadcast block of " + std::to_string(size) +
                                     " bytes exceeds its buffer of " +
                                     std::to_string(block.bytes.size())};
  block.size = size_t(size);
  COMMPRESS_MPI(MPI_Bcast(block.bytes.data(), int(size), MPI_BYTE, root, comm));
  return {};
}

Status check_message_capacity(size_t bytes, const char* what) {
  if (bytes <= size_t(INT_MAX)) return {};
  return {ErrorCode::unsupported, std::string(what) + " blocks may encode to " +
                                      std::to_string(bytes) +
                                      " bytes, above one MPI message's limit of " +
                                      std::to_string(INT_MAX) + ": use a larger grid"};
}

}  // namespace commpress::linalg::detail
