// Planning the collectives (commpress/collective_plan.hpp): Auto's choice or the forced
// algorithm, the wire it runs with, Hierarchical's layout and its fallback ring, and the error
// budget from the algorithm's structure (its runner's quantizations), all from agreed values.
#include "commpress/collective_plan.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "comm/algorithms/argm_hierarchical.hpp"
#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/selection/choose_reduce.hpp"
#include "comm/selection/error_budget.hpp"
#include "comm/selection/planning.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/value_range.hpp"

namespace commpress::comm {

namespace detail {

bool is_reduction(model::Operation op) {
  return op == model::Operation::reduce_scatter || op == model::Operation::allreduce ||
         op == model::Operation::reduce;
}

Status check_reduction(Algorithm algorithm, const Wire& wire, Op op, const char* name) {
  COMMPRESS_RETURN_IF_ERROR(check_op(op));
  if (algorithm == Algorithm::Mpi) return {};
  const codec::Codec* codec = wire.codec();
  if (is_homomorphic(algorithm) &&
      (op != Op::sum || !codec || codec->id() != codec::CodecId::szp))
    return {ErrorCode::unsupported,
            std::string(name) + ": " + algorithm_name(algorithm) +
                " adds szp frames homomorphically; it needs codec \"szp\" and op sum (got codec \"" +
                wire.codec_name() + "\", op " + op_name(op) + ")"};
  if (wire.lossy() && op == Op::prod)
    return {ErrorCode::unsupported,
            std::string(name) + ": prod with the lossy codec " + wire.codec_name() +
                " has no error bound independent of the factors' magnitudes; use a lossless "
                "codec or Algorithm::Mpi"};
  return {};
}

Options options_of(const CollectivePlan& plan) {
  Options o;
  o.codec = plan.codec;
  o.bound = plan.bound;
  o.algorithm = plan.algorithm;
  o.chunk_bytes = plan.chunk_bytes;
  o.pretend_ranks_per_node = plan.nodes.ranks_per_node;
  return o;
}

Choice choice_of(const CollectivePlan& plan) {
  Choice c;
  c.options = options_of(plan);
  c.algorithm = plan.algorithm;
  c.predicted_seconds = plan.predicted_seconds;
  c.break_even_bytes = plan.break_even_bytes;
  return c;
}

Status matches_plan(const CollectivePlan& plan, model::Operation operation, const char* name,
                    int size) {
  if (plan.operation != operation)
    return {ErrorCode::invalid_argument, std::string(name) + ": the plan is one of " +
                                             model::operation_name(plan.operation)};
  if (plan.ranks != size)
    return {ErrorCode::invalid_argument,
            std::string(name) + ": the plan was made for " + std::to_string(plan.ranks) +
                " ranks; this communicator has " + std::to_string(size)};
  return {};
}

namespace {
namespace slot = selection_slot;
}  // namespace

Result<CollectivePlan> plan_agreed(const Collective& c, AgreedCall call, const Choice& choice,
                                   const CollectivePlan* given) {
  call.ranks = c.size;
  const auto& agreed = c.selection;
  call.ratio_at_bound = agreed_ratio(agreed[slot::at_bound]);
  call.ratio_at_fine = agreed_ratio(agreed[slot::at_fine]);
  call.oversubscription = std::max(1.0, -agreed[slot::oversubscription]);
  call.entropy_ratio_at_bound = agreed_ratio(agreed[slot::entropy_at_bound]);
  call.entropy_ratio_at_fine = agreed_ratio(agreed[slot::entropy_at_fine]);
  call.one_node = c.one_node;
  Selection settled;
  settled.algorithm = c.algorithm;
  settled.modes = choice.modes;  // the chosen mode is already choice.options' codec
  settled.predicted_seconds = choice.predicted_seconds;
  settled.break_even_bytes = choice.break_even_bytes;
  if (!given && choice.options.algorithm != Algorithm::Auto) {
    const SelectCall select{call.operation, call.count, call.dtype, call.op};
    settled.predicted_seconds =
        select_agreed(select, choice.options, c.size, nullptr, agreed.data(), c.one_node)
            .predicted_seconds;
  }
  auto plan = plan_from_selection(call, settled, choice.options);
  if (plan.ok() && given) plan->predicted_seconds = given->predicted_seconds;
  return plan;
}

Result<CollectivePlan> plan_p2p(size_t count, Dtype dtype, const Options& opts,
                                const model::MachineProfile* profile, double ratio) {
  const Selection sel = select_p2p(opts, count, dtype, profile, ratio);
  if (sel.algorithm != Algorithm::Direct && sel.algorithm != Algorithm::Mpi)
    return Status{ErrorCode::invalid_argument, std::string("point-to-point does not implement "
                                                           "algorithm ") +
                                                   algorithm_name(sel.algorithm) +
                                                   " (it offers auto, mpi, direct)"};
  CollectivePlan p;
  p.operation = model::Operation::p2p;
  p.ranks = 2;
  p.count = count;
  p.dtype = dtype;
  p.algorithm = p.runs = sel.algorithm;
  p.predicted_seconds = sel.predicted_seconds;
  p.compress = sel.compress;
  if (sel.algorithm == Algorithm::Mpi) {
    p.compress = false;
    return p;
  }
  Options o = opts;
  if (sel.chunk_bytes && o.chunk_bytes == 0) o.chunk_bytes = sel.chunk_bytes;
  auto wire = Wire::make(o, dtype);
  if (!wire.ok()) return wire.status();
  p.codec = wire->codec_name();
  p.bound = wire->lossy() ? o.bound : ErrorBound::lossless();
  p.chunk_bytes = wire->chunk_bytes();
  p.compress = sel.compress && wire->compressed();
  // The sender resolves a REL bound on its array; an ABS one is the plan's.
  if (wire->lossy() && !wire->needs_range())
    p.requested_abs_bound = p.step_abs_bound = p.guaranteed_abs_bound = wire->abs_bound();
  return p;
}

Result<PlannedCall> plan_movement(const Collective& c, AgreedCall call, const Choice& choice,
                                  const CollectivePlan* given) {
  auto plan = plan_agreed(c, call, choice, given);
  if (!plan.ok()) return plan.status();
  plan->requested_abs_bound = plan->step_abs_bound = plan->guaranteed_abs_bound =
      c.wire.abs_bound();
  return PlannedCall{c, std::move(*plan)};
}

Result<Report> end_planned(const PlannedCall& p, const Status& local, const Traffic& traffic) {
  auto r = end_collective(p.c, local, traffic);
  if (r.ok()) r->predicted_seconds = p.plan.predicted_seconds;
  return r;
}

namespace {

// The reductions' error budget on the plan's wire (its bound not yet planned).
Status plan_budget_of(CollectivePlan& p, const Wire& wire) {
  QuantizationCount q;
  const Runner& runner = runner_of(p.runs);
  const bool runs_alone = p.ranks == 1 && !runner.one_rank;  // the input is the result
  if (p.algorithm != Algorithm::Mpi && !runs_alone && runner.quantizations)
    q = runner.quantizations({p.operation, p.runs, p.op, wire, p.ranks, p.count,
                              p.break_even_bytes, p.nodes.nodes});
  auto b = plan_budget({p.op, p.dtype, p.ranks, wire.lossy(), p.requested_abs_bound,
                        ValueRange{p.lo, p.hi}.max_abs(), q});
  if (!b.ok())
    return {b.status().code(),
            std::string(algorithm_name(p.algorithm)) + ": " + b.status().message()};
  p.quantized_additive = q.additive;
  p.quantized_depth = q.depth;
  // A step bound of 0 (nothing quantizes on the way, or the request resolved to 0) makes
  // every frame exact.
  p.step_abs_bound = b->step_bound;
  p.guaranteed_abs_bound = b->guaranteed;
  return {};
}

}  // namespace

Result<CollectivePlan> plan_from_selection(const AgreedCall& call, const Selection& sel,
                                           const Options& opts) {
  CollectivePlan p;
  p.operation = call.operation;
  p.ranks = call.ranks;
  p.count = call.count;
  p.dtype = call.dtype;
  p.op = call.op;
  p.root = call.root;
  p.lo = call.lo;
  p.hi = call.hi;
  p.algorithm = sel.algorithm;
  p.runs = sel.algorithm;
  p.predicted_seconds = sel.predicted_seconds;
  p.modes = sel.modes;
  Options o = opts;
  if (sel.chunk_bytes && o.chunk_bytes == 0) o.chunk_bytes = sel.chunk_bytes;
  if (!sel.codec.empty()) o.codec = sel.codec;
  Result<Wire> made = runs_uncompressed(p.algorithm) ? Wire::uncompressed(p.dtype, o.chunk_bytes)
                                                     : Wire::make(o, p.dtype);
  if (!made.ok()) return made.status();
  const Wire& wire = *made;
  p.codec = wire.codec_name();
  p.bound = wire.lossy() ? o.bound : ErrorBound::lossless();
  p.chunk_bytes = wire.chunk_bytes();
  if (wire.lossy())
    // The codec's own rule for REL bounds, applied to the global range (0: exact).
    p.requested_abs_bound =
        wire.needs_range() ? codec::rel_to_abs(wire.rel_value(), {p.lo, p.hi, p.lo <= p.hi}, p.dtype)
                           : wire.abs_bound();
  if (!is_reduction(p.operation)) {
    p.step_abs_bound = p.guaranteed_abs_bound = p.requested_abs_bound;
    return p;
  }
  p.break_even_bytes = call.break_even_bytes != SIZE_MAX ? call.break_even_bytes
                       : sel.break_even_bytes          ? sel.break_even_bytes
                                                       : kDefaultBreakEvenBytes;
  if (p.algorithm == Algorithm::Hierarchical) {
    p.nodes = call.nodes;
    // Uneven nodes: the cross-node ring runs over every rank instead.
    if (!p.nodes.even) p.runs = hierarchical_inner(p.op, wire);
  }
  COMMPRESS_RETURN_IF_ERROR(plan_budget_of(p, wire));
  return p;
}

}  // namespace detail

namespace {

bool has_root(model::Operation op) {
  return op == model::Operation::reduce || op == model::Operation::bcast ||
         op == model::Operation::scatter || op == model::Operation::gather;
}

const char* plan_name(model::Operation op) {
  return op == model::Operation::reduce_scatter ? "reduce_scatter_block"
                                                : model::operation_name(op);
}

Status check_call(const AgreedCall& call, const Options& opts) {
  const char* name = plan_name(call.operation);
  if (call.ranks < 1)
    return {ErrorCode::invalid_argument, std::string(name) + ": a plan needs ranks >= 1"};
  if (has_root(call.operation) && (call.root < 0 || call.root >= call.ranks))
    return {ErrorCode::invalid_argument, std::string(name) + ": root " +
                                             std::to_string(call.root) + " is not a rank of " +
                                             std::to_string(call.ranks)};
  if (opts.algorithm != Algorithm::Auto) {
    const AlgorithmInfo* info = algorithm_info(opts.algorithm);
    if (!info || !info->serves(call.operation))
      return {ErrorCode::invalid_argument, std::string(name) + " does not implement algorithm " +
                                               algorithm_name(opts.algorithm)};
  }
  return {};
}

Result<CollectivePlan> planned(model::Operation op, AgreedCall call,
                               const model::MachineProfile& profile, const Options& opts) {
  call.operation = op;
  return plan_collective(call, profile, opts);
}

void add(std::string& out, const char* key, const std::string& value, bool json, bool quote) {
  if (json) {
    out += out.size() > 1 ? ", " : "";
    out += std::string("\"") + key + "\": " + (quote ? "\"" + value + "\"" : value);
  } else {
    out += std::string(key) + ": " + value + "\n";
  }
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string bound_text(const ErrorBound& b) {
  switch (b.mode) {
    case codec::BoundMode::abs: return "abs " + num(b.value);
    case codec::BoundMode::rel: return "rel " + num(b.value);
    case codec::BoundMode::lossless: break;
  }
  return "lossless";
}

std::string render(const CollectivePlan& p, bool json) {
  std::string out = json ? "{" : "";
  auto text = [&](const char* k, const std::string& v) { add(out, k, v, json, true); };
  auto number = [&](const char* k, const std::string& v) { add(out, k, v, json, false); };
  text("operation", plan_name(p.operation));
  number("ranks", std::to_string(p.ranks));
  number("count", std::to_string(p.count));
  text("dtype", codec::dtype_name(p.dtype));
  if (detail::is_reduction(p.operation)) text("op", op_name(p.op));
  if (has_root(p.operation)) number("root", std::to_string(p.root));
  text("algorithm", algorithm_name(p.algorithm));
  text("literature", algorithm_info(p.algorithm)->literature);
  text("runs", algorithm_name(p.runs));
  text("codec", p.codec);
  text("bound", bound_text(p.bound));
  number("chunk_bytes", std::to_string(p.chunk_bytes));
  if (p.operation == model::Operation::p2p)
    add(out, "compress", p.compress ? "true" : "false", json, false);
  if (detail::is_reduction(p.operation))
    number("break_even_bytes", std::to_string(p.break_even_bytes));
  if (p.algorithm == Algorithm::Hierarchical) {
    number("ranks_per_node", std::to_string(p.nodes.ranks_per_node));
    number("nodes", std::to_string(p.nodes.nodes));
    number("local_size", std::to_string(p.nodes.local_size));
    add(out, "even_nodes", p.nodes.even ? "true" : "false", json, false);
  }
  number("quantized_additive", std::to_string(p.quantized_additive));
  number("quantized_depth", std::to_string(p.quantized_depth));
  number("requested_abs_bound", num(p.requested_abs_bound));
  number("step_abs_bound", num(p.step_abs_bound));
  number("guaranteed_abs_bound", num(p.guaranteed_abs_bound));
  number("predicted_seconds", num(p.predicted_seconds));
  // The codec modes weighed: "szp: fused_ring 0.22" lines, or one JSON array.
  if (json && !p.modes.empty()) {
    std::string list = "[";
    for (const CodecModeTime& m : p.modes)
      list += std::string(list.size() > 1 ? ", " : "") + "{\"codec\": \"" + m.codec +
              "\", \"algorithm\": \"" + algorithm_name(m.algorithm) +
              "\", \"predicted_seconds\": " + num(m.predicted_seconds) + "}";
    add(out, "modes", list + "]", json, false);
  }
  if (!json)
    for (const CodecModeTime& m : p.modes)
      out += "mode " + m.codec + ": " +
             (m.algorithm != Algorithm::Auto
                  ? std::string(algorithm_name(m.algorithm)) + " " + num(m.predicted_seconds) + " s"
                  : std::string("not weighed (no rates in the profile, or no ratio sampled)")) +
             (m.codec == p.codec ? " (chosen)" : "") + "\n";
  if (json) out += "}\n";
  return out;
}

}  // namespace

Result<CollectivePlan> plan_collective(const AgreedCall& call, const model::MachineProfile& profile,
                                       const Options& opts) {
  if (call.operation == model::Operation::p2p)
    return detail::plan_p2p(call.count, call.dtype, opts, &profile, call.ratio_at_bound);
  COMMPRESS_RETURN_IF_ERROR(check_call(call, opts));
  const bool reduction = detail::is_reduction(call.operation);
  if (reduction) COMMPRESS_RETURN_IF_ERROR(detail::check_op(call.op));
  detail::SelectCall select{call.operation, call.count, call.dtype, call.op};
  if (reduction) select.compressible = detail::reduction_compressible(opts, call.dtype, call.op);
  // The call's ratios are the agreed ones already: no range to re-price them at.
  const auto agreed = detail::selection_mins(
      {call.ratio_at_bound, call.ratio_at_fine, call.entropy_ratio_at_bound,
       call.entropy_ratio_at_fine},
      call.oversubscription);
  detail::Selection sel =
      detail::select_agreed(select, opts, call.ranks, &profile, agreed.data(), call.one_node);
  if (sel.algorithm == Algorithm::SharedWindow && !call.one_node)
    return Status{ErrorCode::unsupported,
                  std::string(plan_name(call.operation)) +
                      ": shared_window needs every rank on one node (these ranks run on several)"};
  auto plan = detail::plan_from_selection(call, sel, opts);
  if (!plan.ok()) return plan.status();
  if (reduction) {
    auto wire = detail::Wire::make(detail::options_of(*plan), call.dtype);
    if (!wire.ok()) return wire.status();
    COMMPRESS_RETURN_IF_ERROR(
        detail::check_reduction(plan->algorithm, *wire, call.op, plan_name(call.operation)));
  }
  return plan;
}

Result<CollectivePlan> plan_allreduce(AgreedCall call, const model::MachineProfile& profile,
                                      const Options& opts) {
  return planned(model::Operation::allreduce, call, profile, opts);
}
Result<CollectivePlan> plan_reduce_scatter_block(AgreedCall call,
                                                 const model::MachineProfile& profile,
                                                 const Options& opts) {
  return planned(model::Operation::reduce_scatter, call, profile, opts);
}
Result<CollectivePlan> plan_reduce(AgreedCall call, const model::MachineProfile& profile,
                                   const Options& opts) {
  return planned(model::Operation::reduce, call, profile, opts);
}
Result<CollectivePlan> plan_bcast(AgreedCall call, const model::MachineProfile& profile,
                                  const Options& opts) {
  return planned(model::Operation::bcast, call, profile, opts);
}
Result<CollectivePlan> plan_allgather(AgreedCall call, const model::MachineProfile& profile,
                                      const Options& opts) {
  return planned(model::Operation::allgather, call, profile, opts);
}

Result<CollectivePlan> plan_scatter(AgreedCall call, const model::MachineProfile& profile,
                                    const Options& opts) {
  return planned(model::Operation::scatter, call, profile, opts);
}
Result<CollectivePlan> plan_gather(AgreedCall call, const model::MachineProfile& profile,
                                   const Options& opts) {
  return planned(model::Operation::gather, call, profile, opts);
}

Result<CollectivePlan> plan_p2p(size_t count, Dtype dtype, const model::MachineProfile& profile,
                                const Options& opts, double ratio) {
  return detail::plan_p2p(count, dtype, opts, &profile, ratio);
}

std::string plan_to_text(const CollectivePlan& plan) { return render(plan, false); }
std::string plan_to_json(const CollectivePlan& plan) { return render(plan, true); }

}  // namespace commpress::comm
