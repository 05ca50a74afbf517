// allreduce: every algorithm of the reductions (docs/algorithms.md), each a reduce-scatter
// followed by an allgather of the finished blocks' frames (the recursive-doubling one
// combines whole vectors instead). Every rank decodes the same frames, so all ranks hold
// identical results. send == recv is MPI_IN_PLACE: every algorithm reads all of its input
// before it writes any result.
#include <climits>
#include <cstring>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/selection/choose_reduce.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/reduce_collective.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"
#include "core/assert.hpp"

namespace commpress::comm {

namespace {

using detail::ReduceSession;

Status via_mpi(ReduceSession& s, const void* send, void* recv, size_t n) {
  MPI_Datatype t = detail::mpi_datatype(s.wire().dtype());
  const bool in_place = send == recv || s.input_in_output();
  if (s.input_slot()) send = s.input_slot();
  COMMPRESS_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, int(n), t,
                              detail::mpi_op(s.op()), s.comm()));
  // MPI's own traffic is not observable: count what a ring allreduce sends.
  uint64_t bytes = s.wire().raw_bytes(n) * 2 * uint64_t(s.size() - 1) / uint64_t(s.size());
  s.traffic().add(bytes, bytes);
  return {};
}

Result<std::unique_ptr<ReduceSession>> begin(const void* send, void* recv, size_t count,
                                              Dtype dtype, Op op, MPI_Comm comm,
                                              detail::Choice& choice,
                                              const CollectivePlan* given, bool plan_only) {
  detail::ReduceCall call{model::Operation::allreduce, "allreduce", count, dtype, op, 0, false,
                          send, count, recv};
  call.given = given;
  call.plan_only = plan_only;
  return ReduceSession::begin(comm, call, choice, [&](const detail::Collective& c) -> Status {
    if (count > 0 && (send == nullptr || (!plan_only && recv == nullptr)))
      return {ErrorCode::invalid_argument, "allreduce: null buffer with a non-zero count"};
    if (count > size_t(INT_MAX) && c.algorithm == Algorithm::Hierarchical)
      return {ErrorCode::unsupported, "allreduce: hierarchical takes at most 2^31-1 elements"};
    if (c.algorithm == Algorithm::Rabenseifner)  // the doubling phase's largest message
      return detail::check_message_size(2 * c.wire.block_capacity(count), "allreduce");
    return {};
  });
}

// Runs the session's plan.
Result<Report> execute(ReduceSession& s, const void* send, void* recv, size_t count) {
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (s.algorithm() == Algorithm::Mpi) return s.end(via_mpi(s, send, recv, count));
  const detail::Runner& runner = detail::runner_of(s.algorithm());
  if (s.size() == 1 && !runner.one_rank) {  // nothing to reduce with: the input is the exact result
    if (send != recv && count && !s.input_in_output())
      std::memcpy(recv, send, count * s.wire().elem_size());
    return s.end({});
  }
  COMMPRESS_ASSERT(runner.allreduce);  // the agreement admits only algorithms that serve it
  return s.end(runner.allreduce(s, in, out, count));
}

constexpr detail::ReductionVerb kAllreduce{detail::choose_allreduce, begin, execute};

}  // namespace

Result<Report> allreduce(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                         MPI_Comm comm, const Options& opts) {
  return kAllreduce.run(send, recv, count, dtype, op, comm, opts);
}

Result<Report> allreduce(const CollectivePlan& plan, const void* send, void* recv,
                         MPI_Comm comm) {
  return kAllreduce.run(plan, send, recv, comm);
}

Result<CollectivePlan> plan_allreduce(const void* send, size_t count, Dtype dtype, Op op,
                                      MPI_Comm comm, const Options& opts) {
  return kAllreduce.plan(send, count, dtype, op, comm, opts);
}

}  // namespace commpress::comm
