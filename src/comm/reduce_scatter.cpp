// reduce_scatter_block: rank r receives block r (count_per_rank elements) of the reduction of
// every rank's p blocks. The ring algorithms end with the owner's block as values (the DOC
// ring never encodes it a last time); the recursive-doubling one reduces the whole vector and
// keeps its block (it is an allreduce pattern, offered for completeness; Auto never picks
// it). send == recv is MPI_IN_PLACE: the input is read from recv, then overwritten.
#include <climits>
#include <cstring>
#include <vector>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/selection/choose_reduce.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/reduce_collective.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"
#include "core/assert.hpp"

namespace commpress::comm {

namespace {

using detail::ReduceSession;

Status via_mpi(ReduceSession& s, const void* send, void* recv, size_t m) {
  MPI_Datatype t = detail::mpi_datatype(s.wire().dtype());
  COMMPRESS_MPI(MPI_Reduce_scatter_block(send == recv ? MPI_IN_PLACE : send, recv, int(m), t,
                                         detail::mpi_op(s.op()), s.comm()));
  // MPI's own traffic is not observable: count what a ring reduce-scatter sends.
  uint64_t bytes = s.wire().raw_bytes(m) * uint64_t(s.size() - 1);
  s.traffic().add(bytes, bytes);
  return {};
}

Result<std::unique_ptr<ReduceSession>> begin(const void* send, void* recv, size_t m,
                                              Dtype dtype, Op op, MPI_Comm comm,
                                              detail::Choice& choice,
                                              const CollectivePlan* given, bool plan_only) {
  int p = 1;  // for the input's length only; a bad comm is reported by the agreement
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);
  detail::ReduceCall call{model::Operation::reduce_scatter, "reduce_scatter_block", m, dtype, op,
                          0, false, send, detail::saturating_blocks(m, size_t(p)), nullptr, true};
  call.given = given;
  call.plan_only = plan_only;
  return ReduceSession::begin(comm, call, choice, [&](const detail::Collective& c) -> Status {
    if (m > 0 && (send == nullptr || (!plan_only && recv == nullptr)))
      return {ErrorCode::invalid_argument,
              "reduce_scatter_block: null buffer with a non-zero count"};
    const size_t n = m * size_t(c.size);
    if (n > size_t(INT_MAX) && c.algorithm == Algorithm::Hierarchical)
      return {ErrorCode::unsupported,
              "reduce_scatter_block: hierarchical takes at most 2^31-1 elements in all"};
    return {};
  });
}

// Runs the session's plan.
Result<Report> execute(ReduceSession& s, const void* send, void* recv, size_t m) {
  if (s.algorithm() == Algorithm::Mpi) return s.end(via_mpi(s, send, recv, m));
  const size_t es = s.wire().elem_size();
  if (s.size() == 1) {
    if (send != recv && m) std::memcpy(recv, send, m * es);
    return s.end({});
  }
  // In place, the result would overwrite input still to be read: work from a copy.
  detail::Buffer copy;
  const auto* in = static_cast<const std::byte*>(send);
  if (send == recv && m) {
    copy.assign(in, in + m * size_t(s.size()) * es);
    in = copy.data();
  }
  const detail::Runner& runner = detail::runner_of(s.algorithm());
  COMMPRESS_ASSERT(runner.reduce_scatter);  // the agreement admits only algorithms that serve it
  return s.end(runner.reduce_scatter(s, in, static_cast<std::byte*>(recv), m));
}

constexpr detail::ReductionVerb kReduceScatter{detail::choose_reduce_scatter, begin, execute};

}  // namespace

Result<Report> reduce_scatter_block(const void* send, void* recv, size_t count_per_rank,
                                    Dtype dtype, Op op, MPI_Comm comm, const Options& opts) {
  return kReduceScatter.run(send, recv, count_per_rank, dtype, op, comm, opts);
}

Result<Report> reduce_scatter_block(const CollectivePlan& plan, const void* send, void* recv,
                                    MPI_Comm comm) {
  return kReduceScatter.run(plan, send, recv, comm);
}

Result<CollectivePlan> plan_reduce_scatter_block(const void* send, size_t count_per_rank,
                                                 Dtype dtype, Op op, MPI_Comm comm,
                                                 const Options& opts) {
  return kReduceScatter.plan(send, count_per_rank, dtype, op, comm, opts);
}

}  // namespace commpress::comm
