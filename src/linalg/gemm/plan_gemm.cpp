// plan_gemm: everything gemm runs, from the cost models (include/commpress/gemm_model.hpp) on
// the machine profile in force, before anything runs. Auto takes the algorithm (and, over a
// communicator, the grid) with the smallest predicted time; a forced algorithm passes through
// with its prediction. Codec "auto" weighs raw blocks against zstd-1 and, under a lossy bound,
// szp, at the ratio the profile measured for them (plan_gemm has no data to sample):
// compression is chosen only when the model predicts it faster, i.e. when the link is slow
// enough for the codec (compressed_cannon_threshold is that rule in closed form). The chosen
// algorithm's planning hook (its row of model/gemm_algorithms.def) then says which operands
// travel through the codec and how wide SUMMA's panels are.
//
// The planning itself is pure (plan_gemm(GemmProblem)); the collective overloads agree on the
// arguments first and measure the shared-memory domain (agreed too), so every rank plans alike.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "comm/probe/probed_profile.hpp"
#include "comm/select.hpp"
#include "comm/session/agreement.hpp"
#include "comm/session/hierarchy.hpp"
#include "comm/session/one_sided.hpp"
#include "comm/session/private_comm.hpp"
#include "commpress/gemm_model.hpp"
#include "commpress/linalg.hpp"
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg {

namespace {

namespace md = commpress::model;

struct Request {
  Trans ta, tb;
  int64_t m, n, k;
  Dtype dtype;
  const GemmOptions* opts;
};

struct Codecs {
  std::vector<std::string> names;
  std::vector<md::GemmCodec> models;
};

// The profile's rates and ratio for the codec, and its frame bound as a line through two block
// sizes (compress_bound is affine in the element count for every registered codec).
md::GemmCodec codec_model(const codec::Codec& c, Dtype dt, const md::MachineProfile& prof,
                          const codec::ErrorBound& bound) {
  md::GemmCodec z = md::gemm_codec(prof.rates(c.name(), dt));
  z.lossy = c.lossy() && bound.mode != codec::BoundMode::lossless;
  z.relative = z.lossy && bound.mode == codec::BoundMode::rel;
  const double e = double(codec::dtype_size(dt));
  constexpr size_t n1 = size_t{1} << 10, n2 = size_t{1} << 20;
  const double b1 = double(c.compress_bound(n1, dt)), b2 = double(c.compress_bound(n2, dt));
  z.bound_slope = (b2 - b1) / (double(n2 - n1) * e);
  z.bound_extra = std::max(0.0, b1 - z.bound_slope * double(n1) * e);
  return z;
}

Result<Codecs> codec_candidates(const Request& r, const md::MachineProfile& prof) {
  const GemmOptions& o = *r.opts;
  Codecs out{{"none"}, {md::GemmCodec{}}};
  if (o.codec.empty() || o.codec == "none") return out;
  if (o.codec == "auto") {
    // Only codecs the profile measured: an unmeasured rate is a guess Auto should not act on.
    for (const char* name : {"zstd-1", "szp"}) {
      auto c = codec::get_codec(name);
      if (!c.ok() || !(*c)->supports(r.dtype) || !prof.rates(name, r.dtype)) continue;
      if ((*c)->lossy() && o.bound.mode == codec::BoundMode::lossless) continue;
      out.names.push_back(name);
      out.models.push_back(codec_model(**c, r.dtype, prof, o.bound));
    }
    return out;
  }
  auto c = codec::get_codec(o.codec);
  if (!c.ok()) return c.status();
  if (!(*c)->supports(r.dtype))
    return Status{ErrorCode::unsupported, "codec " + o.codec + " does not take this dtype"};
  if ((*c)->lossy() && o.bound.mode == codec::BoundMode::lossless)
    return Status{ErrorCode::invalid_argument, "lossy codec " + o.codec + " needs an ABS or REL bound"};
  return Codecs{{o.codec}, {codec_model(**c, r.dtype, prof, o.bound)}};
}

Status check_request(const Request& r) {
  const GemmOptions& o = *r.opts;
  if (r.m < 0 || r.n < 0 || r.k < 0)
    return {ErrorCode::invalid_argument, "plan_gemm: negative dimensions " + std::to_string(r.m) +
                                             "x" + std::to_string(r.n) + "x" + std::to_string(r.k)};
  if (r.dtype != Dtype::f32 && r.dtype != Dtype::f64)
    return {ErrorCode::unsupported, "plan_gemm: only f32 and f64 multiply"};
  if (o.layers < 0 || o.panel < 0)
    return {ErrorCode::invalid_argument, "plan_gemm: layers and panel must be >= 0"};
  return {};
}

// Every number of the profile the models read, as one value: ranks that loaded different
// profiles (COMMPRESS_PROFILE not forwarded by the launcher) would plan different algorithms
// and wait for each other forever, so they fail the agreement instead.
int64_t profile_fingerprint(const md::MachineProfile& m) {
  std::string s;
  auto add = [&s](double v) { s += std::to_string(std::bit_cast<int64_t>(v)) + ","; };
  const md::Link& node = m.node_link();
  for (const md::LinkParams& lp : {m.network.eager, m.network.rendezvous, node.eager, node.rendezvous}) {
    add(lp.alpha);
    add(lp.beta);
  }
  add(m.network.switch_bytes);
  add(node.switch_bytes);
  add(m.ranks_per_node);
  add(m.gamma);
  add(m.gemm_flops_f64);
  add(m.gemm_flops_f32);
  for (const md::CodecRates& c : m.codecs) {
    s += c.codec + ":" + std::to_string(int(c.dtype)) + ":";
    for (double v : {c.compress, c.decompress, c.call_overhead, c.typical_ratio}) add(v);
  }
  return comm::detail::fingerprint(s);
}

// Every rank's view of the request, so that all of them plan the same thing or fail together.
Status agree_request(MPI_Comm comm, const Request& r) {
  const GemmOptions& o = *r.opts;
  // Where no profile is given, the first multiply on comm measures one (the first
  // collective's probe, with the local BLAS rates) before the profile is read.
  comm::probe::ProbeCall probe{nullptr, 0, r.dtype, o.codec == "auto" ? "" : o.codec};
  if (o.bound.mode == codec::BoundMode::rel && o.bound.value > 0) probe.rel_bound = o.bound.value;
  comm::probe::use_probed_profile(comm, probe);
  return comm::detail::agree(
      comm,
      {{"m", r.m},
       {"n", r.n},
       {"k", r.k},
       {"transa", int64_t(r.ta)},
       {"transb", int64_t(r.tb)},
       {"dtype", int64_t(r.dtype)},
       {"algorithm", int64_t(o.algorithm)},
       {"codec", comm::detail::fingerprint(o.codec)},
       {"bound mode", int64_t(o.bound.mode)},
       {"bound value", std::bit_cast<int64_t>(o.bound.value)},
       {"overlap", int64_t(o.overlap)},
       {"layers", int64_t(o.layers)},
       {"panel", o.panel},
       {"memory cap", int64_t(o.memory_cap_bytes)},
       {"machine profile", profile_fingerprint(comm::detail::machine_profile())}},
      check_request(r));
}

// Ranks per shared-memory domain as SRUMMA sees it: the smallest real domain, or the pretend
// node size of COMMPRESS_PRETEND_RANKS_PER_NODE when smaller (agreed: the smallest over ranks).
Result<int> shared_domain(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  COMMPRESS_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  const int pretend = comm::detail::pretend_ranks_per_node(comm::Options{});
  if (pretend > 0) size = std::min(size, pretend);
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &size, 1, MPI_INT, MPI_MIN, comm));
  return size;
}

bool may_run_srumma(const GemmOptions& o) {
  return o.algorithm == GemmAlgorithm::Srumma || o.algorithm == GemmAlgorithm::Auto;
}

// What SRUMMA's planning needs from the ranks: the shared-memory domain, and where it is
// smaller than the ranks, whether MPI windows over them work (agreed, kept with comm).
Status srumma_domain(MPI_Comm comm, int ranks, GemmProblem& p) {
  auto d = shared_domain(comm);
  if (!d.ok()) return d.status();
  p.ranks_per_node = *d;
  if (*d >= ranks) return {};
  auto windows = comm::detail::one_sided_windows_work(comm);
  if (!windows.ok()) return windows.status();
  p.one_sided = *windows;
  return {};
}

md::GemmScenario scenario(const Request& r, const md::MachineProfile& prof, int domain,
                          bool one_sided) {
  md::GemmScenario s;
  s.m = r.m;
  s.n = r.n;
  s.k = r.k;
  s.elem_size = int(codec::dtype_size(r.dtype));
  s.link = prof.network;
  // The nodes as the collectives' models see them (the profiling run's, or pretend ones).
  s.node_size = comm::detail::modelled_ranks_per_node(prof, comm::Options{});
  s.node_link = prof.node_link();
  s.switch_link = prof.switch_link;
  s.switch_nodes = prof.switch_nodes;
  s.gamma = prof.gamma;
  s.flops = md::gemm_flop_rate(prof, r.dtype);
  s.overlap = r.opts->overlap;
  s.panel = r.opts->panel;
  s.ranks_per_node = domain;
  s.one_sided = one_sided;
  return s;
}

// The algorithm's row, for a forced algorithm (nullptr for Auto).
const md::GemmAlgorithmInfo* forced(const GemmOptions& o) {
  return o.algorithm == GemmAlgorithm::Auto ? nullptr : md::gemm_algorithm_info(o.algorithm);
}

bool asks_codec(const GemmOptions& o) {
  return !o.codec.empty() && o.codec != "none" && o.codec != "auto";
}

// A forced algorithm that moves raw blocks: one that refuses a codec fails here, one that
// ignores it is planned raw.
Result<Codecs> codecs_for(const Request& r, const md::MachineProfile& prof) {
  const GemmOptions& o = *r.opts;
  const md::GemmAlgorithmInfo* alg = forced(o);
  if (alg && alg->codec == md::GemmCodecUse::refused && asks_codec(o))
    return Status{ErrorCode::unsupported,
                  std::string(alg->name) + " moves uncompressed blocks; codec " + o.codec +
                      " is not available with it (use codec \"none\")"};
  if (alg && alg->codec == md::GemmCodecUse::ignored) return Codecs{{"none"}, {md::GemmCodec{}}};
  return codec_candidates(r, prof);
}

// The choice among the given grids. The memory cap bounds the choice of the replication, so
// it applies only when plan_gemm chooses the grid.
Result<GemmPlan> choose(const Request& r, const std::vector<md::GemmGrid>& grids, int domain,
                        bool one_sided, bool choose_grid) {
  const GemmOptions& o = *r.opts;
  const md::MachineProfile& prof = comm::detail::machine_profile();
  auto codecs = codecs_for(r, prof);
  if (!codecs.ok()) return codecs.status();
  const md::GemmScenario base = scenario(r, prof, domain, one_sided);
  std::vector<md::GemmAlgorithm> algorithms;
  if (o.algorithm != GemmAlgorithm::Auto) algorithms.push_back(o.algorithm);
  const double cap = choose_grid ? double(o.memory_cap_bytes) : 0.0;
  const md::GemmChoice best = md::choose_gemm(base, grids, algorithms, codecs->models, cap);
  if (!best.found) {
    if (o.algorithm == GemmAlgorithm::Auto)
      return Status{ErrorCode::invalid_argument,
                    "plan_gemm: no algorithm runs here with codec " + o.codec + " (layers " +
                        std::to_string(o.layers) + ", memory cap " +
                        std::to_string(o.memory_cap_bytes) + " bytes)"};
    return Status{ErrorCode::invalid_argument,
                  std::string("plan_gemm: no grid over these ranks runs ") +
                      gemm_algorithm_name(o.algorithm) + " (layers " + std::to_string(o.layers) +
                      ", memory cap " + std::to_string(o.memory_cap_bytes) + " bytes)"};
  }
  GemmPlan plan;
  plan.algorithm = best.algorithm;
  plan.grid_rows = best.grid.rows;
  plan.grid_cols = best.grid.cols;
  plan.layers = best.grid.layers;
  plan.codec = codecs->names[size_t(best.codec)];
  plan.predicted_seconds = best.seconds;
  plan.memory_bytes = uint64_t(std::ceil(best.memory));
  return plan;
}

// What the chosen algorithm adds (its planning hook), and the call's own fields.
Status complete(GemmPlan& plan, const Request& r, int domain) {
  const GemmOptions& o = *r.opts;
  plan.transa = r.ta;
  plan.transb = r.tb;
  plan.m = r.m;
  plan.n = r.n;
  plan.k = r.k;
  plan.dtype = r.dtype;
  plan.overlap = o.overlap;
  plan.panel = o.panel;
  plan.ranks_per_node = domain;
  COMMPRESS_RETURN_IF_ERROR(detail::plan_details(plan));
  if (plan.codec == "none") return {};
  auto c = codec::get_codec(plan.codec);
  if (!c.ok()) return c.status();
  if (!(*c)->lossy()) return {};
  if (plan.compress_a) plan.bound_a = o.bound;
  if (plan.compress_b) plan.bound_b = o.bound;
  return {};
}

Status check_problem(const GemmProblem& p) {
  const bool on_grid = p.grid_rows > 0 || p.grid_cols > 0 || p.layers > 0;
  if (on_grid && (p.grid_rows < 1 || p.grid_cols < 1 || p.layers < 1))
    return {ErrorCode::invalid_argument, "plan_gemm: a grid needs rows, columns and layers >= 1"};
  if (!on_grid && p.ranks < 1)
    return {ErrorCode::invalid_argument, "plan_gemm: give a rank count >= 1 or a grid"};
  if (on_grid && p.ranks > 0 && p.ranks != p.grid_rows * p.grid_cols * p.layers)
    return {ErrorCode::invalid_argument,
            "plan_gemm: a " + std::to_string(p.grid_rows) + "x" + std::to_string(p.grid_cols) +
                "x" + std::to_string(p.layers) + " grid does not hold " + std::to_string(p.ranks) +
                " ranks"};
  if (p.ranks_per_node < 1)
    return {ErrorCode::invalid_argument, "plan_gemm: ranks per node must be >= 1"};
  return {};
}

}  // namespace

namespace detail {

Status plan_details(GemmPlan& plan) {
  switch (plan.algorithm) {
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan_hook, runner)                              \
  case GemmAlgorithm::Id:                                                                      \
    plan_hook(plan);                                                                           \
    break;
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM
    case GemmAlgorithm::Auto:
      return {ErrorCode::invalid_argument, "a plan names an algorithm that runs, not auto"};
  }
  if (plan.codec == "none") plan.compress_a = plan.compress_b = false;
  return {};
}

}  // namespace detail

Result<GemmPlan> plan_gemm(const GemmProblem& p, const GemmOptions& opts) {
  const Request r{p.transa, p.transb, p.m, p.n, p.k, p.dtype, &opts};
  COMMPRESS_RETURN_IF_ERROR(check_request(r));
  COMMPRESS_RETURN_IF_ERROR(check_problem(p));
  if (opts.algorithm != GemmAlgorithm::Auto && forced(opts) == nullptr)
    return Status{ErrorCode::invalid_argument,
                  "plan_gemm: unknown gemm algorithm " + std::to_string(int(opts.algorithm))};
  if (opts.algorithm == GemmAlgorithm::Srumma && !p.one_sided) {
    md::GemmScenario s;
    s.ranks_per_node = p.ranks_per_node;
    s.grid = p.grid_rows > 0 ? md::GemmGrid{p.grid_rows, p.grid_cols, p.layers}
                             : md::GemmGrid{p.ranks, 1, 1};
    if (md::gemm_needs_windows(GemmAlgorithm::Srumma, s))
      return Status{ErrorCode::unsupported,
                    "plan_gemm: srumma reads across shared-memory domains through MPI windows, "
                    "and MPI_Win_create fails over these ranks (Open MPI over TCP: try "
                    "--mca osc sm,pt2pt); choose another algorithm or auto"};
  }
  std::vector<md::GemmGrid> grids;
  const bool choose_grid = p.grid_rows <= 0;
  if (choose_grid) {
    grids = md::gemm_grids(p.ranks, opts.layers);
  } else {
    const md::GemmGrid g{p.grid_rows, p.grid_cols, p.layers};
    md::GemmScenario shape;
    shape.grid = g;
    if (opts.algorithm != GemmAlgorithm::Auto && !md::gemm_runs(opts.algorithm, shape))
      return Status{ErrorCode::invalid_argument,
                    std::string("plan_gemm: ") + gemm_algorithm_name(opts.algorithm) + " needs " +
                        md::gemm_grid_needs(forced(opts)->grid) + ", got " +
                        std::to_string(g.rows) + "x" + std::to_string(g.cols) + "x" +
                        std::to_string(g.layers)};
    grids.push_back(g);
  }
  auto plan = choose(r, grids, p.ranks_per_node, p.one_sided, choose_grid);
  if (!plan.ok()) return plan.status();
  COMMPRESS_RETURN_IF_ERROR(complete(*plan, r, p.ranks_per_node));
  return plan;
}

Result<GemmPlan> plan_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, Dtype dtype,
                           const Grid& grid, const GemmOptions& opts) {
  const Request r{ta, tb, m, n, k, dtype, &opts};
  COMMPRESS_RETURN_IF_ERROR(agree_request(grid.comm(), r));
  GemmProblem p{ta, tb, m, n, k, dtype, 0, grid.rows(), grid.cols(), grid.layers(), 1};
  md::GemmScenario shape;
  shape.grid = {grid.rows(), grid.cols(), grid.layers()};
  const bool runs = opts.algorithm == GemmAlgorithm::Auto || md::gemm_runs(opts.algorithm, shape);
  if (runs && grid.layers() == 1 && may_run_srumma(opts))
    COMMPRESS_RETURN_IF_ERROR(srumma_domain(grid.comm(), grid.size(), p));
  return plan_gemm(p, opts);
}

Result<GemmPlan> plan_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, Dtype dtype,
                           MPI_Comm comm, const GemmOptions& opts) {
  auto pc = comm::detail::private_comm(comm);
  if (!pc.ok()) return pc.status();
  const Request r{ta, tb, m, n, k, dtype, &opts};
  COMMPRESS_RETURN_IF_ERROR(agree_request(*pc, r));
  GemmProblem p{ta, tb, m, n, k, dtype, 1, 0, 0, 0, 1};
  COMMPRESS_MPI(MPI_Comm_size(*pc, &p.ranks));
  if (may_run_srumma(opts)) COMMPRESS_RETURN_IF_ERROR(srumma_domain(*pc, p.ranks, p));
  return plan_gemm(p, opts);
}

}  // namespace commpress::linalg
