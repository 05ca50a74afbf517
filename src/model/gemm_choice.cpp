// The algorithm table as the model sees it (gemm_algorithms.def), which algorithms run where,
// the prediction dispatch, the grids worth trying over p ranks, and Auto's pick: the smallest
// predicted time among the runnable candidates.
#include <array>
#include <cmath>
#include <limits>

#include "model/gemm_terms.hpp"

namespace commpress::model {

namespace {

struct Row {
  GemmAlgorithmInfo info;
  double (*time)(const GemmScenario&);
  double (*memory)(const GemmScenario&);
};

constexpr Row kRows[] = {
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  {{GemmAlgorithm::Id, name, literature, GemmCodecUse::codec, GemmGridRule::grid,               \
    GemmCandidate::candidate},                                                                  \
   detail::model_time, detail::model_memory},
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM
};

constexpr std::array<GemmAlgorithmInfo, std::size(kRows)> infos() {
  std::array<GemmAlgorithmInfo, std::size(kRows)> out{};
  for (size_t i = 0; i < std::size(kRows); ++i) out[i] = kRows[i].info;
  return out;
}
constexpr std::array<GemmAlgorithmInfo, std::size(kRows)> kInfos = infos();

const Row* row_of(GemmAlgorithm a) {
  for (const Row& r : kRows)
    if (r.info.id == a) return &r;
  return nullptr;
}

bool grid_fits(GemmGridRule rule, const GemmGrid& g) {
  switch (rule) {
    case GemmGridRule::square_flat: return g.square() && g.layers == 1;
    case GemmGridRule::flat: return g.layers == 1;
    case GemmGridRule::square_layers: return g.square();
    case GemmGridRule::any: return true;
  }
  return false;
}

}  // namespace

std::span<const GemmAlgorithmInfo> gemm_algorithms() { return kInfos; }

const char* gemm_grid_needs(GemmGridRule rule) {
  switch (rule) {
    case GemmGridRule::square_flat: return "a square 2-D grid";
    case GemmGridRule::flat: return "a 2-D grid (one layer)";
    case GemmGridRule::square_layers: return "square layers";
    case GemmGridRule::any: return "any grid";
  }
  return "an unknown grid";
}

const GemmAlgorithmInfo* gemm_algorithm_info(GemmAlgorithm a) {
  const Row* r = row_of(a);
  return r ? &kInfos[size_t(r - kRows)] : nullptr;
}

GemmCodec gemm_codec(const CodecRates* rates) {
  GemmCodec z;
  z.enabled = true;
  z.compress = rates && rates->compress > 0 ? rates->compress : kDefaultGemmCompressRate;
  z.decompress = rates && rates->decompress > 0 ? rates->decompress : kDefaultGemmDecompressRate;
  z.call_overhead = rates ? rates->call_overhead : 0;
  z.ratio = rates && rates->typical_ratio > 0 ? rates->typical_ratio : 1.0;
  return z;
}

double gemm_flop_rate(const MachineProfile& m, Dtype dtype) {
  if (dtype == Dtype::f32) return m.gemm_flops_f32 > 0 ? m.gemm_flops_f32 : kDefaultGemmFlopsF32;
  return m.gemm_flops_f64 > 0 ? m.gemm_flops_f64 : kDefaultGemmFlopsF64;
}

int64_t default_summa_panel(int64_t k, const GemmGrid& g) {
  constexpr int64_t kWidest = 256;
  const int64_t parts = int64_t(std::max(g.rows, g.cols)) * std::max(g.layers, 1);
  return std::clamp<int64_t>((k + parts - 1) / parts, 1, kWidest);
}

bool gemm_runs(GemmAlgorithm a, const GemmScenario& s) {
  const GemmGrid& g = s.grid;
  const Row* r = row_of(a);
  if (r == nullptr || g.rows < 1 || g.cols < 1 || g.layers < 1) return false;
  if (s.codec.enabled && r->info.codec != GemmCodecUse::compressed) return false;
  if (!s.one_sided && gemm_needs_windows(a, s)) return false;
  return grid_fits(r->info.grid, g);
}

bool gemm_needs_windows(GemmAlgorithm a, const GemmScenario& s) {
  const int64_t ranks = int64_t(s.grid.rows) * s.grid.cols * s.grid.layers;
  return a == GemmAlgorithm::Srumma && ranks > 1 && s.ranks_per_node < ranks;
}

double gemm_time(GemmAlgorithm a, const GemmScenario& s) {
  if (!gemm_runs(a, s)) return INFINITY;
  if (s.m <= 0 || s.n <= 0) return 0;
  return row_of(a)->time(s);
}

double gemm_agreements_time(GemmAlgorithm a, const GemmScenario& s) {
  // ScaLAPACK's pdgemm agrees nothing; every other algorithm runs inside commpress's call.
  if (!gemm_runs(a, s) || a == GemmAlgorithm::ScaLapack) return 0;
  return detail::agreements_time(s, a == GemmAlgorithm::Cannon25D && s.grid.layers > 1);
}

double gemm_memory(GemmAlgorithm a, const GemmScenario& s) {
  if (!gemm_runs(a, s)) return 0;
  return row_of(a)->memory(s);
}

std::vector<GemmGrid> gemm_grids(int p, int layers) {
  std::vector<GemmGrid> out;
  if (p < 1) return out;
  for (int c = 1; c <= p; ++c) {
    if (p % c != 0 || (layers > 0 && c != layers)) continue;
    const int face = p / c;
    if (c == 1) {
      for (int r = 1; r <= face; ++r)
        if (face % r == 0) out.push_back({r, face / r, 1});
      continue;
    }
    const int q = int(std::lround(std::sqrt(double(face))));
    if (q * q == face) out.push_back({q, q, c});
  }
  return out;
}

std::vector<GemmAlgorithm> auto_algorithms(const GemmGrid& g) {
  const GemmCandidate here = g.layers > 1 ? GemmCandidate::layered : GemmCandidate::flat;
  std::vector<GemmAlgorithm> out;
  for (const GemmAlgorithmInfo& a : kInfos)
    if (a.candidate == here) out.push_back(a.id);
  return out;
}

GemmChoice choose_gemm(const GemmScenario& base, std::span<const GemmGrid> grids,
                       std::span<const GemmAlgorithm> algorithms,
                       std::span<const GemmCodec> codecs, double memory_cap) {
  GemmChoice best;
  best.seconds = INFINITY;
  for (const GemmGrid& g : grids) {
    const std::vector<GemmAlgorithm> fallback = algorithms.empty() ? auto_algorithms(g)
                                                                   : std::vector<GemmAlgorithm>{};
    for (GemmAlgorithm a : algorithms.empty() ? std::span<const GemmAlgorithm>(fallback)
                                              : algorithms) {
      for (size_t z = 0; z < codecs.size(); ++z) {
        GemmScenario s = base;
        s.grid = g;
        s.codec = codecs[z];
        if (!gemm_runs(a, s)) continue;
        const double mem = gemm_memory(a, s);
        if (g.layers > 1 && memory_cap > 0 && mem > memory_cap) continue;
        const double t = gemm_time(a, s) + gemm_agreements_time(a, s);
        if (!best.found || t < best.seconds) best = {a, g, int(z), t, mem, true};
      }
    }
  }
  return best;
}

}  // namespace commpress::model
