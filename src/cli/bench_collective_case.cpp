// Buffers and exact results per operation. Rank r's contribution is always stream r of the
// data source (scatter: the root's block for rank r), so the exact output of every operation
// is a sum or a copy of streams that each rank regenerates locally.
#include "cli/bench_collective_case.hpp"

#include <climits>
#include <cstdint>
#include <limits>
#include <numeric>

namespace commpress::cli {

namespace {

constexpr int kP2pTag = 7;
// Exact outputs up to this many values (512 MiB of doubles) are kept between checks.
constexpr size_t kReferenceCacheValues = size_t(64) << 20;

constexpr BenchOp kOps[] = {BenchOp::allreduce, BenchOp::reduce_scatter, BenchOp::bcast,
                            BenchOp::allgather, BenchOp::scatter,        BenchOp::gather,
                            BenchOp::p2p};

MPI_Datatype mpi_type(codec::Dtype d) {
  return d == codec::Dtype::f32 ? MPI_FLOAT : MPI_DOUBLE;
}

Status mpi_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return {};
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return {ErrorCode::mpi, std::string(what) + ": " + std::string(text, size_t(len))};
}

// Writes n values of stream `id` (a contribution of `length`, from value `offset`) at element
// `at` of a byte buffer holding dtype d.
void fill(std::vector<std::byte>& buf, codec::Dtype d, size_t at, size_t n, const DataSource& src,
          int id, size_t length, size_t offset = 0) {
  if (d == codec::Dtype::f32)
    fill_from_stream<float>(src, id, length, offset,
                            {reinterpret_cast<float*>(buf.data()) + at, n});
  else
    fill_from_stream<double>(src, id, length, offset,
                             {reinterpret_cast<double*>(buf.data()) + at, n});
}

std::vector<int> all_ranks(int p) {
  std::vector<int> r(static_cast<size_t>(p));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

}  // namespace

Result<BenchOp> parse_bench_op(std::string_view name) {
  std::string known;
  for (BenchOp op : kOps) {
    if (name == bench_op_name(op)) return op;
    known += (known.empty() ? "" : ", ") + std::string(bench_op_name(op));
  }
  return Status{ErrorCode::invalid_argument,
                "unknown operation '" + std::string(name) + "'; known: " + known};
}

const char* bench_op_name(BenchOp op) {
  switch (op) {
    case BenchOp::allreduce:
      return "allreduce";
    case BenchOp::reduce_scatter:
      return "reduce_scatter";
    case BenchOp::bcast:
      return "bcast";
    case BenchOp::allgather:
      return "allgather";
    case BenchOp::scatter:
      return "scatter";
    case BenchOp::gather:
      return "gather";
    case BenchOp::p2p:
      return "p2p";
  }
  return "?";
}

Result<std::unique_ptr<BenchCase>> BenchCase::make(BenchOp op, size_t count, codec::Dtype dtype,
                                                   int root, const DataSource& src, MPI_Comm comm) {
  if (dtype != codec::Dtype::f32 && dtype != codec::Dtype::f64)
    return Status{ErrorCode::unsupported, "the benchmark measures f32 or f64 data"};
  std::unique_ptr<BenchCase> c(new BenchCase);
  c->op_ = op;
  c->count_ = count;
  c->dtype_ = dtype;
  c->root_ = root;
  c->comm_ = comm;
  MPI_Comm_rank(comm, &c->rank_);
  MPI_Comm_size(comm, &c->size_);
  const int p = c->size_, me = c->rank_;
  const size_t e = codec::dtype_size(dtype);
  if (root < 0 || root >= p)
    return Status{ErrorCode::invalid_argument,
                  "--root " + std::to_string(root) + " is not a rank of " + std::to_string(p)};
  if (op == BenchOp::p2p && p < 2)
    return Status{ErrorCode::invalid_argument, "p2p needs at least 2 ranks (pairs 0-1, 2-3, ...)"};
  if (count > std::numeric_limits<size_t>::max() / (size_t(p) * e))
    return Status{ErrorCode::invalid_argument,
                  "--count " + std::to_string(count) + " is too large"};

  const size_t n = count, np = count * size_t(p);
  auto bytes = [&](size_t elems) { return std::vector<std::byte>(elems * e); };
  std::vector<Segment> segs;
  switch (op) {
    case BenchOp::allreduce:
      c->send_ = bytes(n), c->recv_ = bytes(n);
      fill(c->send_, dtype, 0, n, src, me, n);
      segs.push_back({0, n, 0, n, all_ranks(p)});
      break;
    case BenchOp::reduce_scatter:
      c->send_ = bytes(np), c->recv_ = bytes(n);
      fill(c->send_, dtype, 0, np, src, me, np);
      segs.push_back({0, n, size_t(me) * n, np, all_ranks(p)});
      break;
    case BenchOp::bcast:
      c->send_ = bytes(n);
      if (me == root) fill(c->send_, dtype, 0, n, src, root, n);
      segs.push_back({0, n, 0, n, {root}});
      break;
    case BenchOp::allgather:
    case BenchOp::gather:
      c->send_ = bytes(n);
      fill(c->send_, dtype, 0, n, src, me, n);
      if (op == BenchOp::allgather || me == root) {
        c->recv_ = bytes(np);
        for (int r = 0; r < p; ++r) segs.push_back({size_t(r) * n, n, 0, n, {r}});
      }
      break;
    case BenchOp::scatter:
      c->recv_ = bytes(n);
      if (me == root) {
        c->send_ = bytes(np);
        for (int r = 0; r < p; ++r) fill(c->send_, dtype, size_t(r) * n, n, src, r, n);
      }
      segs.push_back({0, n, 0, n, {me}});
      break;
    case BenchOp::p2p:
      if (!c->in_pair()) break;
      if (me % 2 == 0) {
        c->send_ = bytes(n);
        fill(c->send_, dtype, 0, n, src, me, n);
      } else {
        c->recv_ = bytes(n);
        segs.push_back({0, n, 0, n, {me - 1}});
      }
      break;
  }
  if (!segs.empty())
    c->reference_ = std::make_unique<Reference>(src, dtype, std::move(segs), kReferenceCacheValues);
  return c;
}

bool BenchCase::in_pair() const {
  return rank_ % 2 == 1 || rank_ + 1 < size_;
}

Result<comm::Report> BenchCase::run_commpress(const comm::Options& opts) {
  void* s = send_.data();
  void* r = recv_.data();
  const size_t n = count_;
  switch (op_) {
    case BenchOp::allreduce:
      return comm::allreduce(s, r, n, dtype_, comm::Op::sum, comm_, opts);
    case BenchOp::reduce_scatter:
      return comm::reduce_scatter_block(s, r, n, dtype_, comm::Op::sum, comm_, opts);
    case BenchOp::bcast:
      return comm::bcast(s, n, dtype_, root_, comm_, opts);
    case BenchOp::allgather:
      return comm::allgather(s, r, n, dtype_, comm_, opts);
    case BenchOp::scatter:
      return comm::scatter(s, r, n, dtype_, root_, comm_, opts);
    case BenchOp::gather:
      return comm::gather(s, r, n, dtype_, root_, comm_, opts);
    case BenchOp::p2p:
      if (!in_pair()) return comm::Report{};
      if (rank_ % 2 == 0) return comm::send(s, n, dtype_, rank_ + 1, kP2pTag, comm_, opts);
      return comm::recv(r, n, dtype_, rank_ - 1, kP2pTag, comm_, opts);
  }
  return Status{ErrorCode::internal, "unknown operation"};
}

Result<comm::CollectivePlan> BenchCase::plan_mpi() {
  comm::Options o;
  o.algorithm = comm::Algorithm::Mpi;
  const void* s = send_.data();
  const size_t n = count_;
  switch (op_) {
    case BenchOp::allreduce:
      return comm::plan_allreduce(s, n, dtype_, comm::Op::sum, comm_, o);
    case BenchOp::reduce_scatter:
      return comm::plan_reduce_scatter_block(s, n, dtype_, comm::Op::sum, comm_, o);
    case BenchOp::bcast:
      return comm::plan_bcast(s, n, dtype_, root_, comm_, o);
    case BenchOp::allgather:
      return comm::plan_allgather(s, n, dtype_, comm_, o);
    case BenchOp::scatter:
      return comm::plan_scatter(s, n, dtype_, root_, comm_, o);
    case BenchOp::gather:
      return comm::plan_gather(s, n, dtype_, root_, comm_, o);
    case BenchOp::p2p:
      break;
  }
  return Status{ErrorCode::unsupported, "no plan of MPI's own point-to-point"};
}

Status BenchCase::run_mpi() {
  const size_t largest = op_ == BenchOp::reduce_scatter || op_ == BenchOp::bcast ||
                                 op_ == BenchOp::allreduce || op_ == BenchOp::p2p
                             ? count_
                             : count_ * size_t(size_);
  if (largest > size_t(INT_MAX))
    return {ErrorCode::unsupported,
            "MPI's operations take at most 2^31-1 elements, got " + std::to_string(largest)};
  void* s = send_.data();
  void* r = recv_.data();
  const int n = int(count_);
  const MPI_Datatype t = mpi_type(dtype_);
  switch (op_) {
    case BenchOp::allreduce:
      return mpi_status(MPI_Allreduce(s, r, n, t, MPI_SUM, comm_), "MPI_Allreduce");
    case BenchOp::reduce_scatter:
      return mpi_status(MPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, comm_),
                        "MPI_Reduce_scatter_block");
    case BenchOp::bcast:
      return mpi_status(MPI_Bcast(s, n, t, root_, comm_), "MPI_Bcast");
    case BenchOp::allgather:
      return mpi_status(MPI_Allgather(s, n, t, r, n, t, comm_), "MPI_Allgather");
    case BenchOp::scatter:
      return mpi_status(MPI_Scatter(s, n, t, r, n, t, root_, comm_), "MPI_Scatter");
    case BenchOp::gather:
      return mpi_status(MPI_Gather(s, n, t, r, n, t, root_, comm_), "MPI_Gather");
    case BenchOp::p2p:
      if (!in_pair()) return {};
      if (rank_ % 2 == 0)
        return mpi_status(MPI_Send(s, n, t, rank_ + 1, kP2pTag, comm_), "MPI_Send");
      return mpi_status(MPI_Recv(r, n, t, rank_ - 1, kP2pTag, comm_, MPI_STATUS_IGNORE),
                        "MPI_Recv");
  }
  return {ErrorCode::internal, "unknown operation"};
}

void BenchCase::poison_output() {
  bool bcast = op_ == BenchOp::bcast;
  if (bcast && rank_ == root_) return;  // the root's buffer is the input
  std::vector<std::byte>& out = bcast ? send_ : recv_;
  if (dtype_ == codec::Dtype::f32)
    std::fill_n(reinterpret_cast<float*>(out.data()), out.size() / 4,
                std::numeric_limits<float>::quiet_NaN());
  else
    std::fill_n(reinterpret_cast<double*>(out.data()), out.size() / 8,
                std::numeric_limits<double>::quiet_NaN());
}

double BenchCase::max_error() const {
  if (!reference_) return 0;
  const std::vector<std::byte>& out = op_ == BenchOp::bcast ? send_ : recv_;
  if (dtype_ == codec::Dtype::f32)
    return reference_->max_error<float>(
        {reinterpret_cast<const float*>(out.data()), out.size() / 4});
  return reference_->max_error<double>(
      {reinterpret_cast<const double*>(out.data()), out.size() / 8});
}

uint64_t BenchCase::input_bytes_per_rank() const {
  uint64_t n = count_ * codec::dtype_size(dtype_);
  return op_ == BenchOp::reduce_scatter ? n * uint64_t(size_) : n;
}

uint64_t BenchCase::mpi_nominal_bytes() const {
  const uint64_t block = count_ * codec::dtype_size(dtype_), p = uint64_t(size_);
  const bool root = rank_ == root_;
  switch (op_) {
    case BenchOp::allreduce:
      return 2 * (p - 1) * block / p;  // ring reduce-scatter + allgather
    case BenchOp::reduce_scatter:
      return (p - 1) * block;
    case BenchOp::allgather:
      return (p - 1) * block;
    case BenchOp::bcast:  // every other rank receives the buffer once
      return root ? 0 : block;
    case BenchOp::gather:  // every other rank's block reaches the root once
      return root ? 0 : block;
    case BenchOp::scatter:
      return root ? (p - 1) * block : 0;
    case BenchOp::p2p:
      return in_pair() && rank_ % 2 == 0 ? block : 0;
  }
  return 0;
}

}  // namespace commpress::cli
