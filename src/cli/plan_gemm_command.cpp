// `commpress plan gemm`: the plan Auto (or a forced algorithm) would run for a multiply, printed
// without running it. Planning is pure (linalg::plan_gemm(GemmProblem)): the rank count, the
// ranks per shared-memory domain and the machine profile in force (COMMPRESS_PROFILE) are all it
// needs besides the call, so no mpirun is involved, and a launch with those ranks on that
// profile runs exactly this plan.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/bench_gemm_case.hpp"
#include "cli/bench_gemm_plan.hpp"
#include "cli/commands.hpp"
#include "commpress/linalg.hpp"

namespace commpress::cli {

namespace {

struct PlanGemmArgs {
  int64_t m = 0, n = 0, k = 0;
  int ranks = 0;
  int ranks_per_node = 0;  // 0: every rank on one node
  std::string grid;        // "PRxPC" or "PRxPCxC": plan on this grid
  std::string dtype = "f64";
  std::string transa = "N", transb = "N";
  std::string algorithm = "auto";
  std::string codec = "none";
  double bound_rel = 0, bound_abs = 0;
  std::string overlap = "on";
  int64_t panel = 0;
  int layers = 0;
  uint64_t memory_cap = 0;
};

Status invalid(std::string message) { return {ErrorCode::invalid_argument, std::move(message)}; }

std::string bound_text(const codec::ErrorBound& b) {
  char v[32];
  std::snprintf(v, sizeof v, "%.17g", b.value);
  switch (b.mode) {
    case codec::BoundMode::abs: return std::string("abs ") + v;
    case codec::BoundMode::rel: return std::string("rel ") + v;
    case codec::BoundMode::lossless: break;
  }
  return "lossless";
}

Result<linalg::GemmProblem> problem_of(const PlanGemmArgs& a) {
  linalg::GemmProblem p;
  auto ta = parse_trans("--transa", a.transa);
  if (!ta.ok()) return ta.status();
  auto tb = parse_trans("--transb", a.transb);
  if (!tb.ok()) return tb.status();
  auto dt = codec::parse_dtype(a.dtype);
  if (!dt.ok()) return dt.status();
  p.transa = *ta;
  p.transb = *tb;
  p.dtype = *dt;
  p.m = a.m;
  p.n = a.n;
  p.k = a.k;
  p.ranks = a.ranks;
  if (!a.grid.empty()) {
    auto g = parse_grid_shape(a.grid);
    if (!g.ok()) return g.status();
    p.grid_rows = g->rows;
    p.grid_cols = g->cols;
    p.layers = g->layers;
    if (p.ranks == 0) p.ranks = g->rows * g->cols * g->layers;
  }
  if (p.ranks < 1) return invalid("plan gemm: give --ranks P (>= 1) or --grid PRxPC[xC]");
  p.ranks_per_node = a.ranks_per_node > 0 ? a.ranks_per_node : p.ranks;
  return p;
}

Result<linalg::GemmOptions> options_of(const PlanGemmArgs& a) {
  linalg::GemmOptions o;
  auto alg = linalg::parse_gemm_algorithm(a.algorithm);
  if (!alg.ok()) return alg.status();
  o.algorithm = *alg;
  o.codec = a.codec;
  if (a.bound_rel != 0 && a.bound_abs != 0) return invalid("give --bound-rel or --bound-abs, not both");
  for (double v : {a.bound_rel, a.bound_abs})
    if (v != 0 && !(std::isfinite(v) && v > 0))
      return invalid("--bound-rel and --bound-abs must be positive and finite");
  if (a.bound_rel > 0) o.bound = codec::ErrorBound::relative(a.bound_rel);
  if (a.bound_abs > 0) o.bound = codec::ErrorBound::absolute(a.bound_abs);
  if (a.overlap != "on" && a.overlap != "off")
    return invalid("--overlap takes on or off, got '" + a.overlap + "'");
  o.overlap = a.overlap == "on";
  o.panel = a.panel;
  o.layers = a.layers;
  o.memory_cap_bytes = a.memory_cap;
  return o;
}

Status run_plan_gemm(const PlanGemmArgs& a) {
  auto problem = problem_of(a);
  if (!problem.ok()) return problem.status();
  auto opts = options_of(a);
  if (!opts.ok()) return opts.status();
  auto plan = linalg::plan_gemm(*problem, *opts);
  if (!plan.ok()) return plan.status();
  const linalg::GemmPlan& p = *plan;
  std::printf("algorithm: %s\n", linalg::gemm_algorithm_name(p.algorithm));
  std::printf("literature: %s\n", linalg::gemm_algorithm_literature(p.algorithm));
  std::printf("grid: %dx%dx%d\n", p.grid_rows, p.grid_cols, p.layers);
  std::printf("ranks_per_node: %d\n", p.ranks_per_node);
  std::printf("multiply: %lldx%lldx%lld %s %s%s\n", static_cast<long long>(p.m),
              static_cast<long long>(p.n), static_cast<long long>(p.k),
              codec::dtype_name(p.dtype), p.transa == linalg::Trans::N ? "N" : "T",
              p.transb == linalg::Trans::N ? "N" : "T");
  std::printf("codec: %s\n", p.codec.c_str());
  std::printf("compress_a: %s\n", p.compress_a ? "yes" : "no");
  std::printf("compress_b: %s\n", p.compress_b ? "yes" : "no");
  std::printf("bound_a: %s\n", bound_text(p.bound_a).c_str());
  std::printf("bound_b: %s\n", bound_text(p.bound_b).c_str());
  std::printf("panel: %lld\n", static_cast<long long>(p.panel));
  std::printf("overlap: %s\n", p.overlap ? "on" : "off");
  std::printf("predicted_seconds: %.6g\n", p.predicted_seconds);
  std::printf("memory_bytes: %llu\n", static_cast<unsigned long long>(p.memory_bytes));
  return {};
}

}  // namespace

void add_plan_gemm_command(CLI::App& app, Outcome& outcome) {
  auto a = std::make_shared<PlanGemmArgs>();
  CLI::App* cmd = plan_group(app)->add_subcommand(
      "gemm",
      "the plan of the distributed multiply C = op(A) op(B) on P ranks: algorithm, grid, codec "
      "and bounds per operand, panel width, the model's time and memory (no MPI needed)");
  cmd->add_option("--m", a->m, "rows of op(A) and C")->required();
  cmd->add_option("--n", a->n, "columns of op(B) and C")->required();
  cmd->add_option("--k", a->k, "columns of op(A), rows of op(B)")->required();
  cmd->add_option("--ranks", a->ranks, "ranks of the launch (Auto chooses their grid)");
  cmd->add_option("--grid", a->grid, "PRxPC or PRxPCxC: plan on this grid instead");
  cmd->add_option("--ranks-per-node", a->ranks_per_node,
                  "ranks per shared-memory domain (default: every rank on one node)");
  cmd->add_option("--dtype", a->dtype, "f64 or f32")->capture_default_str();
  cmd->add_option("--transa", a->transa, "N or T")->capture_default_str();
  cmd->add_option("--transb", a->transb, "N or T")->capture_default_str();
  cmd->add_option("--algorithm", a->algorithm, gemm_algorithm_list())
      ->capture_default_str();
  cmd->add_option("--codec", a->codec, "none, auto or a registry name")->capture_default_str();
  cmd->add_option("--bound-rel", a->bound_rel, "input bound relative to each matrix's range");
  cmd->add_option("--bound-abs", a->bound_abs, "absolute input bound");
  cmd->add_option("--overlap", a->overlap, "on or off")->capture_default_str();
  cmd->add_option("--panel", a->panel, "SUMMA panel width (0 = chosen)")->capture_default_str();
  cmd->add_option("--layers", a->layers, "replication c Auto considers (0 = any)")
      ->capture_default_str();
  cmd->add_option("--memory-cap", a->memory_cap, "bytes per rank for Auto's replication (0 = none)")
      ->capture_default_str();
  cmd->callback([a, &outcome] { outcome.status = run_plan_gemm(*a); });
}

}  // namespace commpress::cli
