#include "comm/detail/reduce_collective.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "comm/algorithms/shared_window.hpp"
#include "comm/detail/choose_reduce.hpp"
#include "comm/detail/count_limit.hpp"
#include "comm/detail/hierarchy.hpp"
#include "comm/detail/private_comm.hpp"
#include "comm/detail/reduce_ops.hpp"
#include "comm/detail/shared_segment.hpp"
#include "comm/detail/value_range.hpp"

namespace commpress::comm::detail {

namespace {

Status shared_checks(const Collective& c, const ReduceCall& call) {
  COMMPRESS_RETURN_IF_ERROR(check_op(call.op));
  if (c.algorithm == Algorithm::Mpi) return {};
  const codec::Codec* codec = c.wire.codec();
  if (is_homomorphic(c.algorithm) &&
      (call.op != Op::sum || !codec || codec->id() != codec::CodecId::szp))
    return {ErrorCode::unsupported,
            std::string(call.name) + ": " + algorithm_name(c.algorithm) +
                " adds szp frames homomorphically; it needs codec \"szp\" and op sum (got codec \"" +
                c.wire.codec_name() + "\", op " + op_name(call.op) + ")"};
  if (c.wire.lossy() && call.op == Op::prod)
    return {ErrorCode::unsupported,
            std::string(call.name) + ": prod with the lossy codec " + c.wire.codec_name() +
                " has no error bound independent of the factors' magnitudes; use a lossless "
                "codec or Algorithm::Mpi"};
  return {};
}

}  // namespace

Result<std::unique_ptr<ReduceSession>> ReduceSession::begin(
    MPI_Comm comm, const ReduceCall& call, Choice& choice,
    const std::function<Status(const Collective&)>& local_checks) {
  auto s = std::make_unique<ReduceSession>();
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
  if (has_input && shared_window_offered && comm != MPI_COMM_NULL &&
      (pending ? expects_mpi && choice.pending->expects_window()
               : choice.algorithm == Algorithm::SharedWindow))
    if (auto pc = private_comm(comm); pc.ok())
      s->input_slot_ =
          shared_window_input_slot(*pc, call.input_count * codec::dtype_size(call.dtype));
  s->input_in_output_ =
      !s->input_slot_ && expects_mpi && call.output && call.output != call.input && has_input;
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
        COMMPRESS_RETURN_IF_ERROR(shared_checks(c, call));
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
  s->predicted_ = choice.predicted_seconds;
  s->lo_ = extras.mins[0];
  s->hi_ = -extras.mins[1];
  s->inputs_in_slots_ = extras.mins[2] == 1.0;
  const Wire& w = s->c_.wire;
  if (w.lossy()) {
    if (w.needs_range()) {
      // The codec's own rule for REL bounds, applied to the global range (0: exact).
      s->requested_ =
          codec::rel_to_abs(w.rel_value(), {s->lo_, s->hi_, s->lo_ <= s->hi_}, w.dtype());
    } else {
      s->requested_ = w.abs_bound();
    }
  }
  return s;
}

Status ReduceSession::plan(QuantizationCount q, int inputs) {
  auto b = plan_budget({op_, c_.wire.dtype(), inputs, c_.wire.lossy(), requested_,
                        ValueRange{lo_, hi_}.max_abs(), q});
  if (!b.ok()) return {b.status().code(), std::string(algorithm_name(c_.algorithm)) + ": " +
                                              b.status().message()};
  budget_ = *b;
  // A step bound of 0 (nothing quantizes on the way, or the request resolved to 0) makes
  // every frame exact.
  if (c_.wire.lossy()) c_.wire = c_.wire.with_abs_bound(budget_.step_bound);
  return {};
}

Result<Report> ReduceSession::end(const Status& st, Algorithm ran) {
  auto r = end_collective(c_, st.ok() ? first_ : st, traffic_);
  if (!r.ok()) return r;
  r->algorithm = ran;
  r->guaranteed_abs_bound = budget_.guaranteed;
  r->predicted_seconds = predicted_;
  return r;
}

}  // namespace commpress::comm::detail
