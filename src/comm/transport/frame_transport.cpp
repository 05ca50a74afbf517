#include "comm/transport/frame_transport.hpp"

#include <array>
#include <atomic>
#include <climits>

#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"

namespace commpress::comm::detail {

namespace {

std::atomic<int> g_corrupt_countdown{-1};  // -1: off; k: damage after k more messages
std::atomic<int> g_fail_countdown{0};      // 0: off; k: the kth exchange finished fails

// The failure fail_exchange_for_testing() asked for, on the exchange it named.
Status injected_failure() {
  int left = g_fail_countdown.load();
  while (left > 0 && !g_fail_countdown.compare_exchange_weak(left, left - 1)) {
  }
  if (left != 1) return {};
  return {ErrorCode::mpi, "exchange failed (injected by fail_exchange_for_testing)"};
}

// The bytes actually handed to MPI: msg itself, or (once, when a test asked for it) a
// damaged copy that must outlive the send, hence the process-lifetime buffer.
std::span<const std::byte> outgoing(std::span<const std::byte> msg) {
  if (msg.empty() || g_corrupt_countdown.load() < 0) return msg;
  if (g_corrupt_countdown.fetch_sub(1) > 0) return msg;
  static std::vector<std::byte> damaged;
  damaged.assign(msg.begin(), msg.end());
  damaged[damaged.size() / 2] ^= std::byte{0x5a};
  return damaged;
}

std::string chunk_label(size_t k, int src) {
  return "chunk " + std::to_string(k) + " from rank " + std::to_string(src) + ": ";
}

}  // namespace

void keep_first(Status& first, const Status& st, const std::string& where) {
  if (first.ok() && !st.ok()) first = {st.code(), where + st.message()};
}

void fail_exchange_for_testing(int nth) { g_fail_countdown = nth > 0 ? nth : 0; }

void corrupt_next_send_for_testing(bool on, int skip) {
  g_corrupt_countdown = on ? skip : -1;
}

Status check_message_size(size_t bytes, const char* what) {
  if (bytes <= size_t(INT_MAX)) return {};
  return {ErrorCode::invalid_argument, std::string(what) + " needs messages of up to " +
                                           std::to_string(bytes) +
                                           " bytes; one MPI message carries at most 2 GiB"};
}

Status isend_message(std::span<const std::byte> msg, uint64_t raw, int dest, int tag,
                     MPI_Comm comm, MPI_Request* req, Traffic& traffic) {
  auto bytes = outgoing(msg);
  COMMPRESS_MPI(MPI_Isend(bytes.data(), int(bytes.size()), MPI_BYTE, dest, tag, comm, req));
  if (dest != MPI_PROC_NULL) traffic.add(raw, bytes.size());
  return {};
}

Status wait_all(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return {};
  COMMPRESS_MPI(waitall_yielding(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
  reqs.clear();
  return {};
}

Status test_all(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return {};
  int done = 0;
  COMMPRESS_MPI(MPI_Testall(int(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE));
  if (done) reqs.clear();
  return {};
}

Status send_stream(const Wire& wire, const void* data, size_t n, std::span<const int> dests,
                   int tag, MPI_Comm comm, Traffic& traffic) {
  // Two frame buffers: chunk k is encoded into one while chunk k-1 leaves from the other.
  std::array<Buffer, 2> buf;
  std::array<std::vector<MPI_Request>, 2> sends;
  const auto* src = static_cast<const std::byte*>(data);
  Status first;
  for (size_t k = 0; k < wire.num_chunks(n); ++k) {
    auto& slot = sends[k & 1];
    COMMPRESS_RETURN_IF_ERROR(wait_all(slot));  // chunk k-2 left this buffer
    size_t m = wire.chunk_size(n, k);
    const std::byte* chunk = src + k * wire.chunk_elems() * wire.elem_size();
    std::span<const std::byte> frame(chunk, wire.raw_bytes(m));  // uncompressed: no copy
    if (wire.compressed()) {
      auto len = wire.encode(chunk, m, buf[k & 1]);
      keep_first(first, len.status(), "chunk " + std::to_string(k) + ": ");
      frame = std::span<const std::byte>(buf[k & 1].data(), len.ok() ? *len : 0);
    }
    for (int dest : dests) {
      slot.push_back(MPI_REQUEST_NULL);
      COMMPRESS_RETURN_IF_ERROR(
          isend_message(frame, wire.raw_bytes(m), dest, tag, comm, &slot.back(), traffic));
    }
    COMMPRESS_RETURN_IF_ERROR(test_all(sends[(k + 1) & 1]));
  }
  COMMPRESS_RETURN_IF_ERROR(wait_all(sends[0]));
  COMMPRESS_RETURN_IF_ERROR(wait_all(sends[1]));
  return first;
}

Status recv_stream(const Wire& wire, void* out, size_t n, int src, std::span<const int> forward,
                   int tag, MPI_Comm comm, Traffic& traffic) {
  const size_t chunks = wire.num_chunks(n);
  std::array<Buffer, 2> buf;
  std::array<MPI_Request, 2> recvs = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  std::array<std::vector<MPI_Request>, 2> sends;
  auto post = [&](size_t k) -> Status {
    auto& b = buf[k & 1];
    size_t cap = wire.frame_capacity(wire.chunk_size(n, k));
    if (b.size() < cap) b.resize(cap);
    COMMPRESS_MPI(MPI_Irecv(b.data(), int(cap), MPI_BYTE, src, tag, comm, &recvs[k & 1]));
    return {};
  };
  for (size_t k = 0; k < std::min<size_t>(2, chunks); ++k) COMMPRESS_RETURN_IF_ERROR(post(k));
  auto* dst = static_cast<std::byte*>(out);
  Status first;
  for (size_t k = 0; k < chunks; ++k) {
    MPI_Status st;
    COMMPRESS_MPI(waitall_yielding(1, &recvs[k & 1], &st));
    int len = 0;
    COMMPRESS_MPI(MPI_Get_count(&st, MPI_BYTE, &len));
    std::span<const std::byte> frame(buf[k & 1].data(), size_t(len));
    size_t m = wire.chunk_size(n, k);
    // Forward first, so the children's transfer overlaps this rank's decoding.
    for (int dest : forward) {
      sends[k & 1].push_back(MPI_REQUEST_NULL);
      COMMPRESS_RETURN_IF_ERROR(isend_message(frame, wire.raw_bytes(m), dest, tag, comm,
                                              &sends[k & 1].back(), traffic));
    }
    if (dst)
      keep_first(first, wire.decode(frame, dst + k * wire.chunk_elems() * wire.elem_size(), m),
                 chunk_label(k, src));
    if (k + 2 < chunks) {
      COMMPRESS_RETURN_IF_ERROR(wait_all(sends[k & 1]));
      COMMPRESS_RETURN_IF_ERROR(post(k + 2));
    }
    COMMPRESS_RETURN_IF_ERROR(test_all(sends[(k + 1) & 1]));
  }
  COMMPRESS_RETURN_IF_ERROR(wait_all(sends[0]));
  COMMPRESS_RETURN_IF_ERROR(wait_all(sends[1]));
  return first;
}

Status PendingExchange::start(std::span<const std::byte> out, uint64_t raw_out, int dest,
                              Buffer& in, size_t capacity, int src, int tag, MPI_Comm comm,
                              Traffic& traffic) {
  in_ = &in;
  in.resize(src == MPI_PROC_NULL ? 0 : capacity);
  if (src != MPI_PROC_NULL)
    COMMPRESS_MPI(MPI_Irecv(in.data(), int(capacity), MPI_BYTE, src, tag, comm, &reqs_[0]));
  return isend_message(out, raw_out, dest, tag, comm, &reqs_[1], traffic);
}

Status PendingExchange::test_both() {
  int done = 0;
  if (reqs_[0] != MPI_REQUEST_NULL) {
    MPI_Status st;
    COMMPRESS_MPI(MPI_Test(&reqs_[0], &done, &st));
    if (done) COMMPRESS_MPI(MPI_Get_count(&st, MPI_BYTE, &received_));
  }
  if (reqs_[1] != MPI_REQUEST_NULL) COMMPRESS_MPI(MPI_Test(&reqs_[1], &done, MPI_STATUS_IGNORE));
  return {};
}

Status PendingExchange::progress() {
  if (progress_error_.ok()) progress_error_ = test_both();
  return progress_error_;
}

Status PendingExchange::finish() {
  MPI_Status st[2];
  COMMPRESS_MPI(waitall_yielding(2, reqs_, st));
  if (in_ && !in_->empty()) {
    int len = received_;
    if (len < 0) COMMPRESS_MPI(MPI_Get_count(&st[0], MPI_BYTE, &len));
    in_->resize(size_t(len));
  }
  in_ = nullptr;
  received_ = -1;
  Status moved = progress_error_;
  progress_error_ = {};
  if (!moved.ok()) return moved;
  return injected_failure();
}

Status exchange(std::span<const std::byte> out, uint64_t raw_out, int dest, Buffer& in,
                size_t capacity, int src, int tag, MPI_Comm comm, Traffic& traffic) {
  PendingExchange x;
  COMMPRESS_RETURN_IF_ERROR(x.start(out, raw_out, dest, in, capacity, src, tag, comm, traffic));
  return x.finish();
}

}  // namespace commpress::comm::detail
