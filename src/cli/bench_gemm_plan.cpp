// plan_gemm_measurements: options to the list of measurements, with clear errors.
#include "cli/bench_gemm_plan.hpp"

#include <cmath>

#include "cli/bench_gemm_mpi.hpp"
#include "commpress/gemm_model.hpp"

namespace commpress::cli {

namespace {

Status invalid(std::string message) {
  return {ErrorCode::invalid_argument, std::move(message)};
}

// The bounds a codec is measured at: lossless codecs (and none) once, exactly; lossy codecs at
// each given bound; "auto" at each bound, or exactly when none is given.
Result<std::vector<codec::ErrorBound>> bounds_for(const std::string& name,
                                                  const BenchGemmArgs& args, codec::Dtype dtype) {
  std::vector<codec::ErrorBound> given;
  for (double v : args.bound_rel) given.push_back(codec::ErrorBound::relative(v));
  for (double v : args.bound_abs) given.push_back(codec::ErrorBound::absolute(v));
  if (name == "none") return std::vector<codec::ErrorBound>{codec::ErrorBound::lossless()};
  if (name == "auto")
    return given.empty() ? std::vector<codec::ErrorBound>{codec::ErrorBound::lossless()} : given;
  auto c = codec::get_codec(name);
  if (!c.ok()) return c.status();
  if (!(*c)->supports(dtype))
    return Status{ErrorCode::unsupported,
                  "codec " + name + " does not take " + codec::dtype_name(dtype)};
  if (!(*c)->lossy()) return std::vector<codec::ErrorBound>{codec::ErrorBound::lossless()};
  if (given.empty()) return invalid("lossy codec " + name + " needs --bound-rel or --bound-abs");
  return given;
}

// The 2.5D algorithms' default: the largest square face q x q with q*q dividing the ranks,
// replicated over the remaining c = ranks / q^2 layers (2 ranks: 1x1x2; 8 ranks: 2x2x2).
GridShape layered_grid(int ranks) {
  int q = 1;
  for (int f = 1; f * f <= ranks; ++f)
    if (ranks % (f * f) == 0) q = f;
  return {q, q, ranks / (q * q)};
}

Result<GridShape> grid_for(const BenchGemmArgs& args, const GemmProblem& p, codec::Dtype dtype,
                           const linalg::GemmOptions& opts, int ranks, MPI_Comm comm) {
  if (!args.grid.empty()) return parse_grid_shape(args.grid);
  using linalg::GemmAlgorithm;
  if (opts.algorithm == GemmAlgorithm::Cannon25D || opts.algorithm == GemmAlgorithm::Summa25D)
    return layered_grid(ranks);
  if (opts.algorithm != GemmAlgorithm::Auto) return squarest_grid(ranks);
  auto plan = linalg::plan_gemm(p.transa, p.transb, p.m, p.n, p.k, dtype, comm, opts);
  if (!plan.ok()) return plan.status();
  return GridShape{plan->grid_rows, plan->grid_cols, plan->layers};
}

}  // namespace

std::string gemm_algorithm_list() {
  std::string out = linalg::gemm_algorithm_name(linalg::GemmAlgorithm::Auto);
  for (const model::GemmAlgorithmInfo& a : model::gemm_algorithms()) out += std::string(", ") + a.name;
  return out;
}

Result<linalg::Trans> parse_trans(const char* option, const std::string& v) {
  if (v == "N" || v == "n") return linalg::Trans::N;
  if (v == "T" || v == "t") return linalg::Trans::T;
  return invalid(std::string(option) + " takes N or T, got '" + v + "'");
}

Result<GemmProblem> gemm_problem_of(const BenchGemmArgs& args) {
  GemmProblem p;
  if (args.m < 0 || args.n < 0 || args.k < 0)
    return invalid("--m, --n and --k must be >= 0, got " + std::to_string(args.m) + ", " +
                   std::to_string(args.n) + ", " + std::to_string(args.k));
  if (args.m > INT32_MAX || args.n > INT32_MAX || args.k > INT32_MAX)
    return invalid("--m, --n and --k must fit ScaLAPACK's 32-bit sizes");
  p.m = args.m;
  p.n = args.n;
  p.k = args.k;
  auto ta = parse_trans("--transa", args.transa);
  if (!ta.ok()) return ta.status();
  auto tb = parse_trans("--transb", args.transb);
  if (!tb.ok()) return tb.status();
  p.transa = *ta;
  p.transb = *tb;
  if (!(args.zeros >= 0 && args.zeros <= 1))
    return invalid("--zeros is a fraction in [0, 1], got " + std::to_string(args.zeros));
  p.zeros = args.zeros;
  p.seed = args.seed;
  auto ref = parse_reference_kind(args.reference);
  if (!ref.ok()) return ref.status();
  p.reference = *ref;
  if (args.repeat < 1 || args.warmup < 0) return invalid("--repeat must be >= 1 and --warmup >= 0");
  if (args.overlap != "on" && args.overlap != "off")
    return invalid("--overlap takes on or off, got '" + args.overlap + "'");
  if (args.panel < 0) return invalid("--panel must be >= 0 (0 lets commpress choose)");
  for (double v : args.bound_rel)
    if (!(std::isfinite(v) && v > 0)) return invalid("--bound-rel must be positive and finite");
  for (double v : args.bound_abs)
    if (!(std::isfinite(v) && v > 0)) return invalid("--bound-abs must be positive and finite");
  return p;
}

Result<std::vector<GemmMeasurement>> plan_gemm_measurements(const BenchGemmArgs& args,
                                                            const GemmProblem& problem,
                                                            codec::Dtype dtype, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const std::vector<std::string> codecs =
      args.codecs.empty() ? std::vector<std::string>{"none"} : args.codecs;
  std::vector<GemmMeasurement> plan;
  for (const std::string& entry : args.algorithms) {
    // ALGORITHM@CODEC measures that algorithm with that codec alone, so one launch can put
    // every algorithm uncompressed next to one algorithm with each codec.
    const size_t at = entry.find('@');
    const std::string name = entry.substr(0, at);
    GemmMeasurement m;
    m.requested = name;
    m.opts.overlap = args.overlap == "on";
    m.opts.panel = args.panel;
    if (name == "blas") {
      // The node's rate for the whole product in one process: what a distributed multiply on
      // the same cores can at best approach.
      if (ranks != 1 || (!args.grid.empty() && args.grid != "1x1" && args.grid != "1x1x1"))
        return invalid("algorithm blas is one local product: run it on one rank (mpirun -np 1)");
      m.blas = true;
      m.grid = {1, 1, 1};
      plan.push_back(m);
      continue;
    }
    auto alg = linalg::parse_gemm_algorithm(name);
    if (!alg.ok()) return alg.status();
    m.opts.algorithm = *alg;
    auto grid = grid_for(args, problem, dtype, m.opts, ranks, comm);
    if (!grid.ok()) return grid.status();
    if (grid->rows * grid->cols * grid->layers != ranks)
      return invalid("grid " + grid->str() + " has " +
                     std::to_string(grid->rows * grid->cols * grid->layers) +
                     " ranks, the launch " + std::to_string(ranks));
    m.grid = *grid;
    // ScaLAPACK moves its blocks uncompressed: one measurement whatever the codecs.
    std::vector<std::string> mine = codecs;
    if (at != std::string::npos) {
      mine = {entry.substr(at + 1)};
      if (mine[0].empty()) return invalid("'" + entry + "': no codec after @");
    }
    if (*alg == linalg::GemmAlgorithm::ScaLapack) {
      if (at != std::string::npos && mine[0] != "none")
        return invalid("scalapack moves its blocks uncompressed: '" + entry + "'");
      mine = {"none"};
    }
    for (const std::string& c : mine) {
      auto bounds = bounds_for(c, args, dtype);
      if (!bounds.ok()) return bounds.status();
      m.opts.codec = c;
      for (const auto& b : *bounds) {
        m.opts.bound = b;
        plan.push_back(m);
      }
    }
  }
  if (plan.empty()) return invalid("no --algorithm given");
  return plan;
}

}  // namespace commpress::cli
