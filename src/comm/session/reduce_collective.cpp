#include "comm/session/reduce_collective.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/shared_window.hpp"
#include "comm/selection/choose_reduce.hpp"
#include "comm/selection/planning.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/hierarchy.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/value_range.hpp"
#include "comm/transport/shared_segment.hpp"

namespace commpress::comm::detail {

Result<std::unique_ptr<ReduceSession>> ReduceSession::begin(
    MPI_Comm comm, const ReduceCall& call, Choice& choice,
    const std::function<Status(const Collective&)>& local_checks) {
  auto s = std::make_unique<ReduceSession>();
  if (call.given) {  // the plan's choices, to agree on and run
    choice = choice_of(*call.given);
    settle_break_even(choice);
  }
  s->op_ = call.op;
  // Auto settles its break-even size in the agreement from agreed values; only a size forced
  // for testing needs agreeing then.
  const bool pending = choice.pending != nullptr;
  s->break_even_ = pending ? forced_compression_break_even_bytes() : break_even_of(choice);
  const int pretend = detail::pretend_ranks_per_node(choice.options);
  s->pretend_ = pending || choice.algorithm == Algorithm::Hierarchical ? pretend : 0;
  // The reductions' own arguments and the global range of the finite inputs (their error
  // budget needs its largest magnitude) travel in the argument agreement's round trip.
  // Where MPI's own operation is the likely outcome, the pass copies the input to the output
  // as it reads: that replaces the copy MPI would make, so the range costs no read of its
  // own. Where SharedWindow is the likely outcome and its segment on this communicator holds
  // a slot large enough already, the slot takes that copy instead. Should the agreement fail,
  // only the output (or the slot) has been written.
  const bool expects_mpi =
      pending ? choice.pending->expects_mpi() : choice.algorithm == Algorithm::Mpi;
  // Nothing is read from an input whose count no buffer could have (the agreement refuses it).
  const bool has_input = call.input && call.input_count &&
                         count_fits(call.input_count, call.dtype);
  const bool shared_window_offered =
      algorithm_info(Algorithm::SharedWindow)->serves(call.operation);
  if (has_input && shared_window_offered && comm != MPI_COMM_NULL && !call.plan_only &&
      (pending ? expects_mpi && choice.pending->expects_window()
               : choice.algorithm == Algorithm::SharedWindow))
    if (auto pc = private_comm(comm); pc.ok())
      s->input_slot_ =
          shared_window_input_slot(*pc, call.input_count * codec::dtype_size(call.dtype));
  s->input_in_output_ = !s->input_slot_ && expects_mpi && call.output && !call.plan_only &&
                        call.output != call.input && has_input;
  void* copy = s->input_slot_        ? static_cast<void*>(s->input_slot_)
               : s->input_in_output_ ? call.output
                                     : nullptr;
  const void* input = has_input ? call.input : nullptr;
  const ValueRange mine = copy ? local_range_copy(call.dtype, input, call.input_count, copy)
                               : local_range(call.dtype, input, call.input_count);
  if (s->input_slot_) segment_fence();
  AgreementExtras extras{
      {{"op", int64_t(call.op)},
       {"break-even bytes", int64_t(std::min<size_t>(s->break_even_, size_t{1} << 52))},
       {"pretend ranks per node", int64_t(s->pretend_)}},
      // The last: 1 where this rank's input sits in its slot, so the minimum says all do.
      {mine.lo, -mine.hi, s->input_slot_ ? 1.0 : 0.0}};
  auto c = begin_collective(
      comm,
      {call.operation, call.name, call.count, call.dtype, call.root, call.has_root,
       call.per_rank},
      choice,
      [&](const Collective& c) -> Status {
        if (call.given)
          COMMPRESS_RETURN_IF_ERROR(
              matches_plan(*call.given, call.operation, call.name, c.size));
        COMMPRESS_RETURN_IF_ERROR(check_reduction(c.algorithm, c.wire, call.op, call.name));
        return local_checks ? local_checks(c) : Status{};
      },
      &extras);
  if (!c.ok()) return c.status();
  s->c_ = *c;
  if (pending) {
    settle_break_even(choice);
    s->break_even_ = break_even_of(choice);
    if (choice.algorithm != Algorithm::Hierarchical) s->pretend_ = 0;
  }
  s->inputs_in_slots_ = extras.mins[2] == 1.0;
  // The plan, from agreed values only.
  AgreedCall agreed;
  agreed.operation = call.operation;
  agreed.count = call.count;
  agreed.dtype = call.dtype;
  agreed.op = call.op;
  agreed.root = call.root;
  agreed.lo = extras.mins[0];
  agreed.hi = -extras.mins[1];
  agreed.break_even_bytes = s->break_even_;
  if (s->c_.algorithm == Algorithm::Hierarchical) {
    auto h = Hierarchy::of(s->c_.comm, s->pretend_);
    if (!h.ok()) return h.status();
    const bool even = (*h)->even();
    agreed.nodes = {s->pretend_, (*h)->nodes(), even ? (*h)->local_size() : 0, even};
  }
  auto plan = plan_agreed(s->c_, agreed, choice, call.given);
  if (!plan.ok()) return plan.status();
  s->plan_ = std::move(*plan);
  s->c_.algorithm = s->plan_.runs;
  s->break_even_ = s->plan_.break_even_bytes;
  if (s->c_.wire.lossy()) s->c_.wire = s->c_.wire.with_abs_bound(s->plan_.step_abs_bound);
  return s;
}

Result<Report> ReduceSession::end(const Status& st) {
  auto r = end_collective(c_, st.ok() ? first_ : st, traffic_);
  if (!r.ok()) return r;
  r->algorithm = plan_.runs;
  r->guaranteed_abs_bound = plan_.guaranteed_abs_bound;
  r->predicted_seconds = plan_.predicted_seconds;
  return r;
}

Result<Report> ReductionVerb::run(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                                  MPI_Comm comm, const Options& opts) const {
  const CodecThreads threads;
  Choice choice = choose(opts, send, count, dtype, op, comm);
  auto session = begin(send, recv, count, dtype, op, comm, choice, nullptr, false);
  if (!session.ok()) return session.status();
  return execute(**session, send, recv, count);
}

Result<Report> ReductionVerb::run(const CollectivePlan& plan, const void* send, void* recv,
                                  MPI_Comm comm) const {
  const CodecThreads threads;
  Choice choice;
  auto session = begin(send, recv, plan.count, plan.dtype, plan.op, comm, choice, &plan, false);
  if (!session.ok()) return session.status();
  return execute(**session, send, recv, plan.count);
}

Result<CollectivePlan> ReductionVerb::plan(const void* send, size_t count, Dtype dtype, Op op,
                                           MPI_Comm comm, const Options& opts) const {
  Choice choice = choose(opts, send, count, dtype, op, comm);
  auto session = begin(send, nullptr, count, dtype, op, comm, choice, nullptr, true);
  if (!session.ok()) return session.status();
  return (*session)->plan();
}

}  // namespace commpress::comm::detail
