// The nonblocking and persistent verbs (commpress/nonblocking.hpp): each posts the blocking
// verb, bound to the caller's arguments, on the communicator's progress queue
// (session/progress_queue.*), which runs it on the queue's duplicate communicator.
#include "commpress/nonblocking.hpp"

#include <bit>

#include "comm/session/agreement.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/environment.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/progress_queue.hpp"
#include "comm/transport/wire.hpp"

namespace commpress::comm {

bool progress_thread_available() { return detail::threads_available(); }

bool progress_inline() { return detail::environment().progress == detail::ProgressMode::inline_; }

Status progress_mode_status() {
  const auto& why = detail::environment().progress_error;
  if (why.empty()) return {};
  return {ErrorCode::invalid_argument, why};
}

CollectiveRequest::CollectiveRequest() = default;
CollectiveRequest::CollectiveRequest(std::shared_ptr<detail::Task> task) : task_(std::move(task)) {}
CollectiveRequest::~CollectiveRequest() {
  if (task_) (void)task_->wait();
}
CollectiveRequest::CollectiveRequest(CollectiveRequest&& other) noexcept = default;
CollectiveRequest& CollectiveRequest::operator=(CollectiveRequest&& other) noexcept {
  if (this != &other) {
    if (task_) (void)task_->wait();
    task_ = std::move(other.task_);
  }
  return *this;
}

bool CollectiveRequest::test() const { return !task_ || task_->done(); }

Result<Report> CollectiveRequest::wait() {
  if (!task_) return Report{};
  auto t = std::move(task_);
  return t->wait();
}

Status waitall(std::span<CollectiveRequest> requests, std::vector<Report>* reports) {
  Status first;
  if (reports) reports->assign(requests.size(), Report{});
  for (size_t i = 0; i < requests.size(); ++i) {
    auto r = requests[i].wait();
    if (!r.ok() && first.ok()) first = r.status();
    if (r.ok() && reports) (*reports)[i] = *r;
  }
  return first;
}

CollectiveRequest start_on(MPI_Comm comm, std::function<Result<Report>(MPI_Comm)> run,
                           std::function<void()> completed) {
  auto t = std::make_shared<detail::Task>();
  t->run = std::move(run);
  t->completed = std::move(completed);
  detail::post(comm, t);
  return CollectiveRequest(std::move(t));
}

CollectiveRequest iallreduce(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                             MPI_Comm comm, const Options& opts) {
  return start_on(comm, [=](MPI_Comm c) { return allreduce(send, recv, count, dtype, op, c, opts); });
}

CollectiveRequest ireduce_scatter_block(const void* send, void* recv, size_t count_per_rank,
                                        Dtype dtype, Op op, MPI_Comm comm, const Options& opts) {
  return start_on(comm, [=](MPI_Comm c) {
    return reduce_scatter_block(send, recv, count_per_rank, dtype, op, c, opts);
  });
}

CollectiveRequest ibcast(void* buf, size_t count, Dtype dtype, int root, MPI_Comm comm,
                         const Options& opts) {
  return start_on(comm, [=](MPI_Comm c) { return bcast(buf, count, dtype, root, c, opts); });
}

CollectiveRequest iallgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                             MPI_Comm comm, const Options& opts) {
  return start_on(comm,
                  [=](MPI_Comm c) { return allgather(send, recv, count_per_rank, dtype, c, opts); });
}

CollectiveRequest ialltoall(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                            MPI_Comm comm, const Options& opts) {
  return start_on(comm,
                  [=](MPI_Comm c) { return alltoall(send, recv, count_per_rank, dtype, c, opts); });
}

CollectiveRequest ialltoallv(const void* send, std::span<const size_t> send_counts,
                             std::span<const size_t> send_displs, void* recv,
                             std::span<const size_t> recv_counts,
                             std::span<const size_t> recv_displs, Dtype dtype, MPI_Comm comm,
                             const Options& opts) {
  using Layout = std::vector<size_t>;
  return start_on(comm, [=, sc = Layout(send_counts.begin(), send_counts.end()),
                         sd = Layout(send_displs.begin(), send_displs.end()),
                         rc = Layout(recv_counts.begin(), recv_counts.end()),
                         rd = Layout(recv_displs.begin(), recv_displs.end())](MPI_Comm c) {
    return alltoallv(send, sc, sd, recv, rc, rd, dtype, c, opts);
  });
}

PersistentRequest::~PersistentRequest() = default;  // run_ waits for a started run

Status PersistentRequest::start() {
  if (comm_ == MPI_COMM_NULL)
    return {ErrorCode::invalid_argument, "start: the persistent request was not initialized"};
  if (run_.active())
    return {ErrorCode::invalid_argument, "start: the persistent request is already running"};
  run_ = start_on(comm_, [send = send_, recv = recv_, n = count_, d = dtype_, op = op_,
                          opts = opts_](MPI_Comm c) {
    return allreduce(send, recv, n, d, op, c, opts);
  });
  return {};
}

Result<Report> PersistentRequest::wait() {
  auto r = run_.wait();
  // The first run decided: every later one runs the same (the report is the same on every
  // rank, so the ranks keep agreeing).
  if (r.ok() && opts_.algorithm == Algorithm::Auto && r->algorithm != Algorithm::Auto) {
    opts_.algorithm = r->algorithm;
    if (opts_.chunk_bytes == 0) opts_.chunk_bytes = r->chunk_bytes;
  }
  return r;
}

Result<PersistentRequest> allreduce_init(const void* send, void* recv, size_t count, Dtype dtype,
                                         Op op, MPI_Comm comm, const Options& opts) {
  auto own = detail::private_comm(comm);
  if (!own.ok()) return own.status();
  Status local = detail::check_count("allreduce_init", count, dtype);
  if (local.ok() && count > 0 && (send == nullptr || recv == nullptr))
    local = {ErrorCode::invalid_argument, "allreduce_init: null buffer with a non-zero count"};
  if (local.ok()) {
    auto wire = detail::Wire::make(opts, dtype);
    if (!wire.ok()) local = wire.status();
  }
  // Its own operation value: a rank in a plain collective meanwhile fails on the first field.
  constexpr int64_t kAllreduceInit = 0x100 + int64_t(commpress::Operation::allreduce);
  const std::vector<detail::Field> fields = {
      {"operation (allreduce_init)", kAllreduceInit},
      detail::unsigned_field("count", count),
      {"dtype", int64_t(dtype)},
      {"op", int64_t(op)},
      {"codec (name fingerprint)", detail::fingerprint(detail::codec_choice(opts, dtype))},
      {"error bound mode", int64_t(opts.bound.mode)},
      {"error bound value (bits)", std::bit_cast<int64_t>(opts.bound.value)},
      {"algorithm", int64_t(opts.algorithm)},
      {"chunk_bytes", int64_t(opts.chunk_bytes)}};
  COMMPRESS_RETURN_IF_ERROR(detail::agree(*own, fields, local));
  PersistentRequest p;
  p.send_ = send;
  p.recv_ = recv;
  p.count_ = count;
  p.dtype_ = dtype;
  p.op_ = op;
  p.comm_ = comm;
  p.opts_ = opts;
  return p;
}

}  // namespace commpress::comm
