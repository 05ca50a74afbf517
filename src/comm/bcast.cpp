// bcast over a binomial tree (C-Coll): the root compresses each chunk once; every other rank
// forwards the frames it receives unchanged to its children before decoding them, and the
// chunks pipeline down the tree (chunk k moves one level down while chunk k+1 arrives).
// The root's buffer is never touched; every other rank holds the decoded data, within the
// single compression's bound of the root's values. Uncompressed: MPI's own, or the plain
// tree (algorithms/plain_binomial.hpp) where the profile measured MPI's slower.
#include "comm/algorithms/parts/binomial_tree.hpp"
#include "comm/algorithms/plain_binomial.hpp"
#include "comm/algorithms/shared_window.hpp"
#include "comm/selection/choose.hpp"
#include "comm/selection/planning.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

constexpr int kTag = 0x100;

Status binomial(const detail::Collective& c, void* buf, size_t n, int root,
                detail::Traffic& traffic) {
  detail::BinomialTree tree(c.rank, c.size, root);
  auto children = tree.children_ranks();
  if (c.rank == root)
    return detail::send_stream(c.wire, buf, n, children, kTag, c.comm, traffic);
  return detail::recv_stream(c.wire, buf, n, tree.parent_rank(), children, kTag, c.comm,
                             traffic);
}

Status via_mpi(const detail::Collective& c, void* buf, size_t n, int root,
               detail::Traffic& traffic) {
  MPI_Datatype t = detail::mpi_datatype(c.wire.dtype());
  COMMPRESS_MPI(detail::collective_yielding(
      [&] { return MPI_Bcast(buf, int(n), t, root, c.comm); },
      [&](MPI_Request* req) { return MPI_Ibcast(buf, int(n), t, root, c.comm, req); }));
  // MPI's own traffic is not observable: count what a binomial tree sends uncompressed.
  uint64_t bytes = c.wire.raw_bytes(n) * detail::BinomialTree(c.rank, c.size, root).children().size();
  traffic.add(bytes, bytes);
  return {};
}

Status via_shared_window(const detail::Collective& c, void* buf, size_t n, int root,
                         detail::Traffic& traffic) {
  const uint64_t bytes = c.wire.raw_bytes(n);
  // The root writes the message into shared memory once.
  if (c.rank == root) traffic.add(bytes, bytes);
  return detail::shared_window_bcast(c.comm, root, static_cast<std::byte*>(buf), bytes);
}

// The call's agreement and its plan (given: a plan made earlier, to agree on); plan_only
// stops there.
Result<detail::PlannedCall> agree_and_plan(void* buf, size_t count, Dtype dtype, int root, MPI_Comm comm,
                               detail::Choice& choice, const CollectivePlan* given,
                               bool plan_only) {
  // The bound is the root's data's range, carried by the agreement.
  const bool at_root = detail::place_in(comm).rank == root;
  const void* data = at_root ? buf : nullptr;
  const size_t data_count = at_root ? count : 0;
  detail::AgreementExtras range = detail::range_extras(choice, dtype, data, data_count);
  auto c = detail::begin_collective(
      comm, {model::Operation::bcast, "bcast", count, dtype, root, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (given)
          COMMPRESS_RETURN_IF_ERROR(
              detail::matches_plan(*given, model::Operation::bcast, "bcast", c.size));
        if (count > 0 && buf == nullptr && !(plan_only && c.rank != root))
          return {ErrorCode::invalid_argument, "bcast: null buffer with a non-zero count"};
        return {};
      },
      &range);
  if (!c.ok()) return c.status();
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, range, data, data_count));
  AgreedCall call;
  call.operation = model::Operation::bcast;
  call.count = count;
  call.dtype = dtype;
  call.root = root;
  return detail::plan_movement(*c, call, choice, given);  // the bound: the root's data's
}

Result<Report> execute(const detail::PlannedCall& p, void* buf) {
  const detail::Collective& c = p.c;
  const size_t count = p.plan.count;
  const int root = p.plan.root;
  detail::Traffic traffic;
  Status local;
  if (c.algorithm == Algorithm::Mpi)
    local = via_mpi(c, buf, count, root, traffic);
  else if (c.algorithm == Algorithm::PlainBinomial)
    local = detail::plain_binomial_bcast(c, buf, count, root, traffic);
  else if (c.algorithm == Algorithm::SharedWindow)
    local = via_shared_window(c, buf, count, root, traffic);
  else
    local = binomial(c, buf, count, root, traffic);
  return detail::end_planned(p, local, traffic);
}

}  // namespace

Result<Report> bcast(void* buf, size_t count, Dtype dtype, int root, MPI_Comm comm,
                     const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_bcast(opts, buf, count, dtype, root, comm);
  auto p = agree_and_plan(buf, count, dtype, root, comm, choice, nullptr, false);
  if (!p.ok()) return p.status();
  return execute(*p, buf);
}

Result<Report> bcast(const CollectivePlan& plan, void* buf, MPI_Comm comm) {
  const detail::CodecThreads threads;
  auto choice = detail::choice_of(plan);
  auto p = agree_and_plan(buf, plan.count, plan.dtype, plan.root, comm, choice, &plan, false);
  if (!p.ok()) return p.status();
  return execute(*p, buf);
}

Result<CollectivePlan> plan_bcast(const void* buf, size_t count, Dtype dtype, int root,
                                  MPI_Comm comm, const Options& opts) {
  auto choice = detail::choose_bcast(opts, buf, count, dtype, root, comm);
  auto p = agree_and_plan(const_cast<void*>(buf), count, dtype, root, comm, choice, nullptr, true);
  if (!p.ok()) return p.status();
  return std::move(p->plan);
}

}  // namespace commpress::comm
