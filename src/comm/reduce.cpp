// reduce: the reduction of every rank's vector at root. The ring algorithms and Rabenseifner
// reduce-scatter first and send each finished block's frames to the root; the recursive-
// doubling one combines frames up a binomial tree; hierarchical reduce-scatters as for
// reduce_scatter_block and gathers. recv matters at root only; send == recv at root is
// MPI_IN_PLACE.
#include <climits>
#include <cstring>
#include <vector>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/selection/choose_reduce.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/reduce_collective.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"
#include "core/assert.hpp"

namespace commpress::comm {

namespace {

using detail::ReduceSession;

Status via_mpi(ReduceSession& s, const void* send, void* recv, size_t n, int root) {
  MPI_Datatype t = detail::mpi_datatype(s.wire().dtype());
  const bool in_place = s.rank() == root && send == recv;
  COMMPRESS_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : send, recv, int(n), t,
                           detail::mpi_op(s.op()), root, s.comm()));
  // MPI's own traffic is not observable: count what a reduce-scatter plus gather sends.
  uint64_t bytes = s.wire().raw_bytes(n) * uint64_t(s.size() - 1) / uint64_t(s.size()) +
                   (s.rank() == root ? 0 : s.wire().raw_bytes(n / s.size()));
  s.traffic().add(bytes, bytes);
  return {};
}

Result<std::unique_ptr<ReduceSession>> begin(const void* send, void* recv, size_t count,
                                              Dtype dtype, Op op, int root, MPI_Comm comm,
                                              detail::Choice& choice,
                                              const CollectivePlan* given, bool plan_only) {
  detail::ReduceCall call{model::Operation::reduce, "reduce", count, dtype, op, root, true, send,
                          count};
  call.given = given;
  call.plan_only = plan_only;
  return ReduceSession::begin(comm, call, choice, [&](const detail::Collective& c) -> Status {
    if (count > 0 && (send == nullptr || (!plan_only && c.rank == root && recv == nullptr)))
      return {ErrorCode::invalid_argument, "reduce: null buffer with a non-zero count"};
    if (count > size_t(INT_MAX) && c.algorithm == Algorithm::Hierarchical)
      return {ErrorCode::unsupported, "reduce: hierarchical takes at most 2^31-1 elements"};
    return {};
  });
}

// Runs the session's plan.
Result<Report> execute(ReduceSession& s, const void* send, void* recv, size_t count, int root) {
  if (s.algorithm() == Algorithm::Mpi) return s.end(via_mpi(s, send, recv, count, root));
  if (s.size() == 1) {
    if (send != recv && count) std::memcpy(recv, send, count * s.wire().elem_size());
    return s.end({});
  }
  const detail::Runner& runner = detail::runner_of(s.algorithm());
  COMMPRESS_ASSERT(runner.reduce);  // the agreement admits only algorithms that serve it
  return s.end(runner.reduce(s, static_cast<const std::byte*>(send),
                             static_cast<std::byte*>(recv), count, root));
}

}  // namespace

Result<Report> reduce(const void* send, void* recv, size_t count, Dtype dtype, Op op, int root,
                      MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_reduce(opts, send, count, dtype, op, root, comm);
  auto session = begin(send, recv, count, dtype, op, root, comm, choice, nullptr, false);
  if (!session.ok()) return session.status();
  return execute(**session, send, recv, count, root);
}

Result<Report> reduce(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm) {
  const detail::CodecThreads threads;
  detail::Choice choice;
  auto session =
      begin(send, recv, plan.count, plan.dtype, plan.op, plan.root, comm, choice, &plan, false);
  if (!session.ok()) return session.status();
  return execute(**session, send, recv, plan.count, plan.root);
}

Result<CollectivePlan> plan_reduce(const void* send, size_t count, Dtype dtype, Op op, int root,
                                   MPI_Comm comm, const Options& opts) {
  auto choice = detail::choose_reduce(opts, send, count, dtype, op, root, comm);
  auto session = begin(send, nullptr, count, dtype, op, root, comm, choice, nullptr, true);
  if (!session.ok()) return session.status();
  return (*session)->plan();
}

}  // namespace commpress::comm
