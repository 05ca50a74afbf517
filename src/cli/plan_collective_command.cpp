// `commpress plan allreduce` (and reduce_scatter_block, reduce, bcast, allgather, scatter,
// gather, p2p): the plan Auto (or a forced algorithm) would run for a collective or a
// point-to-point send, printed without running it.
// Planning is pure (comm::plan_collective): besides the call it needs the rank count, what
// the argument agreement would settle from the data (the inputs' range, the sampled
// compression ratios, szp-eh's where Auto weighs the codec modes; given here as options) and the machine profile in force
// (COMMPRESS_PROFILE), so no mpirun is involved.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "comm/select.hpp"
#include "commpress/collective_plan.hpp"

namespace commpress::cli {

namespace {

struct PlanCollectiveArgs {
  model::Operation operation = model::Operation::allreduce;
  size_t count = 0;
  int ranks = 0;
  std::string dtype = "f32";
  std::string op = "sum";
  int root = 0;
  std::string algorithm = "auto";
  std::string codec = "auto";
  double bound_rel = 0, bound_abs = 0;
  size_t chunk_bytes = 0;
  int ranks_per_node = 0;
  bool one_node = false;
  double lo = -1, hi = 1;
  double ratio = 0, ratio_fine = 0;
  double entropy_ratio = 0, entropy_ratio_fine = 0;
  bool json = false;
};

Status invalid(std::string message) { return {ErrorCode::invalid_argument, std::move(message)}; }

Result<comm::Op> parse_op(const std::string& name) {
  for (comm::Op op : {comm::Op::sum, comm::Op::min, comm::Op::max, comm::Op::prod})
    if (name == comm::op_name(op)) return op;
  return Status{ErrorCode::invalid_argument, "--op takes sum, min, max or prod, got '" + name + "'"};
}

// The node layout Hierarchical would see: consecutive groups of ranks_per_node ranks.
comm::NodeLayout layout_of(int ranks, int per_node) {
  comm::NodeLayout l;
  if (per_node <= 0) return l;
  l.ranks_per_node = per_node;
  l.nodes = (ranks + per_node - 1) / per_node;
  l.even = ranks % per_node == 0 || l.nodes == 1;
  l.local_size = l.even ? std::min(ranks, per_node) : 0;
  return l;
}

Status run_plan_collective(const PlanCollectiveArgs& a) {
  if (a.ranks < 1) return invalid("plan: give --ranks P (>= 1)");
  auto dtype = codec::parse_dtype(a.dtype);
  if (!dtype.ok()) return dtype.status();
  auto op = parse_op(a.op);
  if (!op.ok()) return op.status();
  auto alg = comm::parse_algorithm(a.algorithm);
  if (!alg.ok()) return alg.status();
  if (a.bound_rel != 0 && a.bound_abs != 0) return invalid("give --bound-rel or --bound-abs, not both");
  for (double v : {a.bound_rel, a.bound_abs})
    if (v != 0 && !(std::isfinite(v) && v > 0))
      return invalid("--bound-rel and --bound-abs must be positive and finite");
  if (!(a.lo <= a.hi)) return invalid("--lo must not exceed --hi");
  for (double r : {a.ratio, a.ratio_fine, a.entropy_ratio, a.entropy_ratio_fine})
    if (!(std::isfinite(r) && r >= 0)) return invalid("ratios must be finite and >= 0 (0: not given)");
  comm::Options o;
  o.algorithm = *alg;
  o.codec = a.codec;
  if (a.bound_rel > 0) o.bound = codec::ErrorBound::relative(a.bound_rel);
  if (a.bound_abs > 0) o.bound = codec::ErrorBound::absolute(a.bound_abs);
  o.chunk_bytes = a.chunk_bytes;
  o.pretend_ranks_per_node = a.ranks_per_node;
  comm::AgreedCall call;
  call.operation = a.operation;
  call.ranks = a.ranks;
  call.count = a.count;
  call.dtype = *dtype;
  call.op = *op;
  call.root = a.root;
  call.lo = a.lo;
  call.hi = a.hi;
  call.ratio_at_bound = a.ratio;
  call.ratio_at_fine = a.ratio_fine > 0 ? a.ratio_fine : a.ratio;
  call.entropy_ratio_at_bound = a.entropy_ratio;
  call.entropy_ratio_at_fine = a.entropy_ratio_fine > 0 ? a.entropy_ratio_fine : a.entropy_ratio;
  call.one_node = a.one_node;
  call.nodes = layout_of(a.ranks, a.ranks_per_node);
  auto plan = comm::plan_collective(call, comm::detail::machine_profile(), o);
  if (!plan.ok()) return plan.status();
  const std::string out = a.json ? comm::plan_to_json(*plan) : comm::plan_to_text(*plan);
  std::fputs(out.c_str(), stdout);
  return {};
}

void add_one(CLI::App& group, Outcome& outcome, const char* name, model::Operation operation,
             const char* what) {
  auto a = std::make_shared<PlanCollectiveArgs>();
  a->operation = operation;
  CLI::App* cmd = group.add_subcommand(name, what);
  cmd->add_option("--count", a->count, "the verb's count (per rank where the verb's is)")
      ->required();
  const bool p2p = operation == model::Operation::p2p;
  if (p2p) a->ranks = 2;  // a sender and a receiver
  else cmd->add_option("--ranks", a->ranks, "ranks of the communicator")->required();
  cmd->add_option("--dtype", a->dtype, "f32, f64, i32, ...")->capture_default_str();
  const bool reduction = operation == model::Operation::allreduce ||
                         operation == model::Operation::reduce_scatter ||
                         operation == model::Operation::reduce;
  if (reduction) cmd->add_option("--op", a->op, "sum, min, max or prod")->capture_default_str();
  if (operation == model::Operation::reduce || operation == model::Operation::bcast ||
      operation == model::Operation::scatter || operation == model::Operation::gather)
    cmd->add_option("--root", a->root, "root rank")->capture_default_str();
  cmd->add_option("--algorithm", a->algorithm, "auto or an algorithm's name")->capture_default_str();
  cmd->add_option("--codec", a->codec, "auto, none or a registry name")->capture_default_str();
  cmd->add_option("--bound-rel", a->bound_rel, "bound on the result relative to the inputs' range");
  cmd->add_option("--bound-abs", a->bound_abs, "absolute bound on the result");
  cmd->add_option("--chunk-bytes", a->chunk_bytes, "chunk size (0 = chosen)")->capture_default_str();
  if (p2p)  // a send knows only the typical ratio; a measured message's is given here
    cmd->add_option("--ratio", a->ratio,
                    "the ratio the message achieves (0 = the profile's typical ratio, as a "
                    "send predicts)");
  if (!p2p) {  // point-to-point plans from the call and the profile alone
    cmd->add_option("--ranks-per-node", a->ranks_per_node,
                    "consecutive ranks per node, as pretend nodes (default: nodes unknown)");
    cmd->add_flag("--one-node", a->one_node, "every rank on one node (SharedWindow can run)");
    cmd->add_option("--lo", a->lo, "smallest finite input over all ranks")->capture_default_str();
    cmd->add_option("--hi", a->hi, "largest finite input over all ranks")->capture_default_str();
    cmd->add_option("--ratio", a->ratio,
                    "the worst rank's compression ratio at the bound (0 = not sampled)");
    cmd->add_option("--ratio-fine", a->ratio_fine,
                    "the ratio at a reduction's finest step (default: --ratio)");
    cmd->add_option("--entropy-ratio", a->entropy_ratio,
                    "codec auto: the worst rank's szp-eh ratio at the bound (0 = not sampled: "
                    "Auto keeps szp)");
    cmd->add_option("--entropy-ratio-fine", a->entropy_ratio_fine,
                    "szp-eh's ratio at a reduction's finest step (default: --entropy-ratio)");
  }
  cmd->add_flag("--json", a->json, "one JSON object instead of key: value lines");
  cmd->callback([a, &outcome] { outcome.status = run_plan_collective(*a); });
}

}  // namespace

void add_plan_collective_commands(CLI::App& app, Outcome& outcome) {
  CLI::App& group = *plan_group(app);
  const char* tail =
      ": algorithm, runs, codec, chunking, error budget, the model's time (no MPI needed)";
  add_one(group, outcome, "allreduce", model::Operation::allreduce,
          (std::string("the plan of allreduce") + tail).c_str());
  add_one(group, outcome, "reduce_scatter_block", model::Operation::reduce_scatter,
          (std::string("the plan of reduce_scatter_block") + tail).c_str());
  add_one(group, outcome, "reduce", model::Operation::reduce,
          (std::string("the plan of reduce") + tail).c_str());
  add_one(group, outcome, "bcast", model::Operation::bcast,
          (std::string("the plan of bcast") + tail).c_str());
  add_one(group, outcome, "allgather", model::Operation::allgather,
          (std::string("the plan of allgather") + tail).c_str());
  add_one(group, outcome, "scatter", model::Operation::scatter,
          (std::string("the plan of scatter") + tail).c_str());
  add_one(group, outcome, "gather", model::Operation::gather,
          (std::string("the plan of gather") + tail).c_str());
  add_one(group, outcome, "p2p", model::Operation::p2p,
          "the plan of a point-to-point send: algorithm, codec, chunking, whether the chunks "
          "go compressed, the model's time");
}

}  // namespace commpress::cli
