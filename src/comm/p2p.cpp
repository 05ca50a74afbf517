// Point-to-point send/recv/isend/irecv on the caller's communicator and tag (no private
// duplicate: these are not collective). The transfer protocol lives in
// transport/p2p_transfer.hpp: a header, then the chunk frames, pipelined so compressing chunk
// k+1 overlaps sending chunk k, and decoding chunk k overlaps receiving chunk k+1.

#include "comm/session/codec_threads.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/p2p_transfer.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::Endpoint;
using detail::Traffic;

Status post_send(std::span<const std::byte> msg, uint64_t raw, int dest, int tag, MPI_Comm comm,
                 std::vector<MPI_Request>& reqs, Traffic& traffic) {
  reqs.push_back(MPI_REQUEST_NULL);
  return detail::isend_message(msg, raw, dest, tag, comm, &reqs.back(), traffic);
}

}  // namespace

// A nonblocking operation in flight.
class Request::State {
 public:
  virtual ~State() = default;
  // Advances the operation (to its end when block); true once it has finished.
  virtual bool progress(bool block) = 0;
  virtual Result<Report> result() = 0;
};

namespace {

class SendState final : public Request::State {
 public:
  SendState(const void* buf, size_t count, Dtype dtype, int dest, int tag, MPI_Comm comm,
            const Options& opts)
      : e_(detail::make_endpoint(buf, count, dtype, opts)) {
    if (e_.algorithm == Algorithm::Mpi && e_.local.ok()) {
      auto raw = std::span(static_cast<const std::byte*>(buf), e_.wire.raw_bytes(count));
      error_ = post_send(raw, raw.size(), dest, tag, comm, reqs_, traffic_);
      return;
    }
    header_ = detail::write_header(detail::sender_header(e_, buf));
    error_ = post_send(header_, 0, dest, tag, comm, reqs_, traffic_);
    if (error_.ok()) error_ = e_.local;
    if (!error_.ok()) return;
    // Compressed up front into one buffer that never reallocates, one message per chunk
    // posted as soon as it is encoded (a failed chunk goes out empty, keeping the count).
    // Uncompressed chunks leave straight from the caller's buffer.
    const detail::Wire& w = e_.wire;
    if (w.compressed()) frames_.resize(w.block_capacity(count));
    const auto* src = static_cast<const std::byte*>(buf);
    size_t pos = 0;
    for (size_t k = 0; k < w.num_chunks(count); ++k) {
      size_t m = w.chunk_size(count, k);
      const std::byte* chunk = src + k * w.chunk_elems() * w.elem_size();
      std::span<const std::byte> msg(chunk, w.raw_bytes(m));  // uncompressed: sent in place
      if (w.compressed()) {
        auto len = w.encode_into(chunk, m,
                                 std::span<std::byte>(frames_).subspan(pos, w.frame_capacity(m)));
        detail::keep_first(error_, len.status(), "chunk " + std::to_string(k) + ": ");
        size_t bytes = len.ok() ? *len : 0;
        msg = std::span<const std::byte>(frames_.data() + pos, bytes);
        pos += bytes;
      }
      Status st = post_send(msg, w.raw_bytes(m), dest, tag, comm, reqs_, traffic_);
      if (!st.ok()) {
        error_ = st;
        return;
      }
    }
  }

  bool progress(bool block) override {
    Status st = block ? detail::wait_all(reqs_) : detail::test_all(reqs_);
    detail::keep_first(error_, st, "");
    return reqs_.empty() || !st.ok();
  }

  Result<Report> result() override {
    if (!error_.ok()) return error_;
    return detail::p2p_report(e_, e_.wire, traffic_);
  }

 private:
  Endpoint e_;
  std::array<std::byte, detail::kMessageHeaderSize> header_{};
  detail::Buffer frames_;  // uninitialised: only the frames written are sent
  std::vector<MPI_Request> reqs_;
  Traffic traffic_;
  Status error_;
};

class RecvState final : public Request::State {
 public:
  RecvState(void* buf, size_t count, Dtype dtype, int source, int tag, MPI_Comm comm,
            const Options& opts)
      : me_(detail::make_endpoint(buf, count, dtype, opts)),
        buf_(buf), source_(source), tag_(tag), comm_(comm) {}

  bool progress(bool block) override {
    if (stage_ == Stage::opening && !open(block)) return false;
    if (stage_ == Stage::chunks && !finish_chunks(block)) return false;
    return true;
  }

  Result<Report> result() override {
    if (!error_.ok()) return error_;
    return detail::p2p_report(me_, opening_.stream ? opening_.wire : me_.wire, traffic_);
  }

 private:
  enum class Stage { opening, chunks, done };

  // Matches the header (MPI_Improbe, so nothing is received before its size is known) and
  // posts every chunk receive at once, so later receives cannot take this message's pieces.
  bool open(bool block) {
    detail::ProbedMessage msg;
    MPI_Status st;
    int found = 1;
    int rc = block ? detail::matched_probe(source_, tag_, comm_, &msg, &st)
                   : detail::matched_iprobe(source_, tag_, comm_, &found, &msg, &st);
    if (rc != MPI_SUCCESS) return fail(detail::mpi_status(rc, "MPI_Improbe"));
    if (!found) return false;
    opening_ = detail::open_transfer(me_, buf_, msg, st, comm_);
    if (!opening_.verdict.ok() || !opening_.stream) return fail(opening_.verdict);
    const detail::Wire& w = opening_.wire;
    size_t chunks = w.num_chunks(me_.count);
    frames_.resize(chunks);
    reqs_.assign(chunks, MPI_REQUEST_NULL);
    statuses_.resize(chunks);
    for (size_t k = 0; k < chunks; ++k) {
      frames_[k].resize(w.frame_capacity(w.chunk_size(me_.count, k)));
      rc = MPI_Irecv(frames_[k].data(), int(frames_[k].size()), MPI_BYTE, opening_.source,
                     opening_.tag, comm_, &reqs_[k]);
      if (rc != MPI_SUCCESS) return fail(detail::mpi_status(rc, "MPI_Irecv"));
    }
    stage_ = Stage::chunks;
    return true;
  }

  // Decodes chunk k as soon as it is in, while later chunks still arrive.
  bool finish_chunks(bool block) {
    if (!block) {
      int done = 0;
      int rc = MPI_Testall(int(reqs_.size()), reqs_.data(), &done, statuses_.data());
      if (rc != MPI_SUCCESS) return fail(detail::mpi_status(rc, "MPI_Testall"));
      if (!done) return false;
    }
    const detail::Wire& w = opening_.wire;
    auto* out = static_cast<std::byte*>(buf_);
    for (size_t k = 0; k < frames_.size(); ++k) {
      if (block) {
        int rc = MPI_Wait(&reqs_[k], &statuses_[k]);
        if (rc != MPI_SUCCESS) return fail(detail::mpi_status(rc, "MPI_Wait"));
      }
      int len = 0;
      MPI_Get_count(&statuses_[k], MPI_BYTE, &len);
      Status st = w.decode(std::span<const std::byte>(frames_[k].data(), size_t(len)),
                           out + k * w.chunk_elems() * w.elem_size(), w.chunk_size(me_.count, k));
      detail::keep_first(error_, st,
                         "chunk " + std::to_string(k) + " from rank " +
                             std::to_string(opening_.source) + ": ");
    }
    stage_ = Stage::done;
    return true;
  }

  bool fail(const Status& st) {
    error_ = st;
    stage_ = Stage::done;
    return true;
  }

  Endpoint me_;
  void* buf_;
  int source_, tag_;
  MPI_Comm comm_;
  Stage stage_ = Stage::opening;
  detail::Opening opening_;
  std::vector<detail::Buffer> frames_;  // posted at capacity, uninitialised
  std::vector<MPI_Request> reqs_;
  std::vector<MPI_Status> statuses_;
  Traffic traffic_;
  Status error_;
};

}  // namespace

Request::Request() = default;
Request::Request(std::unique_ptr<State> state) : state_(std::move(state)) {}
Request::~Request() {
  if (state_) (void)wait();
}
Request::Request(Request&& other) noexcept = default;
Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    if (state_) (void)wait();
    state_ = std::move(other.state_);
  }
  return *this;
}

Result<Report> Request::wait() {
  const detail::CodecThreads threads;
  if (!state_) return Status{ErrorCode::invalid_argument, "wait() on an empty or finished request"};
  state_->progress(true);
  auto result = state_->result();
  state_.reset();
  return result;
}

bool Request::test() {
  const detail::CodecThreads threads;
  return !state_ || state_->progress(false);
}

Request isend(const void* buf, size_t count, Dtype dtype, int dest, int tag, MPI_Comm comm,
              const Options& opts) {
  const detail::CodecThreads threads;  // the frames are encoded here
  return Request(std::make_unique<SendState>(buf, count, dtype, dest, tag, comm, opts));
}

Request irecv(void* buf, size_t count, Dtype dtype, int source, int tag, MPI_Comm comm,
              const Options& opts) {
  const detail::CodecThreads threads;
  return Request(std::make_unique<RecvState>(buf, count, dtype, source, tag, comm, opts));
}

Result<Report> send(const void* buf, size_t count, Dtype dtype, int dest, int tag, MPI_Comm comm,
                    const Options& opts) {
  const detail::CodecThreads threads;
  Endpoint e = detail::make_endpoint(buf, count, dtype, opts);
  Traffic traffic;
  std::vector<MPI_Request> reqs;
  if (e.algorithm == Algorithm::Mpi && e.local.ok()) {
    auto raw = std::span(static_cast<const std::byte*>(buf), e.wire.raw_bytes(count));
    COMMPRESS_RETURN_IF_ERROR(post_send(raw, raw.size(), dest, tag, comm, reqs, traffic));
    COMMPRESS_RETURN_IF_ERROR(detail::wait_all(reqs));
    return detail::p2p_report(e, e.wire, traffic);
  }
  auto header = detail::write_header(detail::sender_header(e, buf));
  COMMPRESS_RETURN_IF_ERROR(post_send(header, 0, dest, tag, comm, reqs, traffic));
  COMMPRESS_RETURN_IF_ERROR(detail::wait_all(reqs));
  COMMPRESS_RETURN_IF_ERROR(e.local);  // the header told the receiver; nothing follows
  int to[1] = {dest};
  COMMPRESS_RETURN_IF_ERROR(detail::send_stream(e.wire, buf, count, to, tag, comm, traffic));
  return detail::p2p_report(e, e.wire, traffic);
}

Result<Report> recv(void* buf, size_t count, Dtype dtype, int source, int tag, MPI_Comm comm,
                    const Options& opts) {
  const detail::CodecThreads threads;
  Endpoint me = detail::make_endpoint(buf, count, dtype, opts);
  detail::ProbedMessage msg;
  MPI_Status st;
  COMMPRESS_MPI(detail::matched_probe(source, tag, comm, &msg, &st));
  auto opening = detail::open_transfer(me, buf, msg, st, comm);
  COMMPRESS_RETURN_IF_ERROR(opening.verdict);
  Traffic traffic;
  if (!opening.stream) return detail::p2p_report(me, me.wire, traffic);
  COMMPRESS_RETURN_IF_ERROR(detail::recv_stream(opening.wire, buf, count, opening.source, {},
                                                opening.tag, comm, traffic));
  return detail::p2p_report(me, opening.wire, traffic);
}

}  // namespace commpress::comm
