// Which algorithms run where, the prediction dispatch, the grids worth trying over p ranks,
// and Auto's pick: the smallest predicted time among the runnable candidates.
#include <cmath>
#include <limits>

#include "model/gemm_terms.hpp"

namespace commpress::model {

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
  if (g.rows < 1 || g.cols < 1 || g.layers < 1) return false;
  switch (a) {
    case GemmAlgorithm::Cannon: return g.square() && g.layers == 1;
    case GemmAlgorithm::Summa: return g.layers == 1;
    case GemmAlgorithm::Srumma:
    case GemmAlgorithm::ScaLapack: return g.layers == 1 && !s.codec.enabled;
    case GemmAlgorithm::Cannon25D: return g.square();
    case GemmAlgorithm::Summa25D: return true;
  }
  return false;
}

double gemm_time(GemmAlgorithm a, const GemmScenario& s) {
  if (!gemm_runs(a, s)) return INFINITY;
  if (s.m <= 0 || s.n <= 0) return 0;
  switch (a) {
    case GemmAlgorithm::Cannon:
    case GemmAlgorithm::Cannon25D: return detail::cannon_time(s);
    case GemmAlgorithm::Summa:
    case GemmAlgorithm::Summa25D: return detail::summa_time(s);
    case GemmAlgorithm::Srumma: return srumma_cost(s).seconds;
    case GemmAlgorithm::ScaLapack: return detail::scalapack_time(s);
  }
  return INFINITY;
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
  if (g.layers > 1) return {GemmAlgorithm::Cannon25D, GemmAlgorithm::Summa25D};
  return {GemmAlgorithm::Cannon, GemmAlgorithm::Summa, GemmAlgorithm::Srumma};
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
        const double t = gemm_time(a, s);
        if (!best.found || t < best.seconds) best = {a, g, int(z), t, mem, true};
      }
    }
  }
  return best;
}

}  // namespace commpress::model
