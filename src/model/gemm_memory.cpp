// Extra memory per rank (beyond the caller's A, B and C blocks), the largest over the ranks:
// what GemmPlan::memory_bytes reports and what Auto holds against the memory cap.
//
// - Cannon: a work copy of the A and B blocks (the caller's are never modified); with overlap
//   a second pair receives the next blocks. Compressed: the frames (at their bound, since a
//   receive buffer must take the largest) in place of the raw copies, plus one decoded pair.
// - SUMMA: one pair of panel pieces (two with look-ahead), and their frames when compressed.
// - SRUMMA: the copy of the rank's own blocks into the shared window (when the domain has
//   other ranks) and one pair of fetch buffers (two with overlap).
// - 2.5D: on top of the layer's algorithm, every layer but 0 holds replicas of the A and B
//   blocks and every layer a partial C block: memory(c) = (|A| + |B| + |C|) c / p.
// - ScaLAPACK: one pair of panel pieces as pdgemm's workspace.
#include "model/gemm_terms.hpp"

namespace commpress::model {

namespace {

using detail::layer_blocks;

double pair(const GemmCodec& z, double a, double b, int copies) {
  if (!z.enabled) return copies * (a + b);
  return copies * (z.frame_bound(a) + z.frame_bound(b)) + a + b;
}

double replicas(const GemmScenario& s) {
  if (s.grid.layers <= 1) return 0;
  const detail::LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size;
  return (b.mb * b.ka + b.kb * b.nb + b.mb * b.nb) * e;
}

double cannon(const GemmScenario& s) {
  const detail::LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size, ka = detail::largest_part(s.k, s.grid.rows);
  return pair(s.codec, b.mb * ka * e, ka * b.nb * e, s.overlap ? 2 : 1) + replicas(s);
}

double summa(const GemmScenario& s, bool overlap) {
  const detail::LayerBlocks b = layer_blocks(s);
  const double w = detail::summa_panels(s).widest, e = s.elem_size;
  return pair(s.codec, b.mb * w * e, w * b.nb * e, overlap ? 2 : 1) + replicas(s);
}

double srumma(const GemmScenario& s) {
  const detail::LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size;
  const bool shared = s.ranks_per_node > 1 && s.grid.size() > 1;
  const double own = shared ? (b.mb * b.ka + b.kb * b.nb) * e : 0;
  // A task's pieces end at the owner boundaries of both k splits: the narrower block.
  const double w = std::min(b.ka, b.kb);
  return own + (s.overlap ? 2 : 1) * (b.mb * w + w * b.nb) * e;
}

}  // namespace

double gemm_memory(GemmAlgorithm a, const GemmScenario& s) {
  if (!gemm_runs(a, s)) return 0;
  switch (a) {
    case GemmAlgorithm::Cannon:
    case GemmAlgorithm::Cannon25D: return cannon(s);
    case GemmAlgorithm::Summa:
    case GemmAlgorithm::Summa25D: return summa(s, s.overlap);
    case GemmAlgorithm::Srumma: return srumma(s);
    case GemmAlgorithm::ScaLapack: {
      GemmScenario raw = s;
      raw.codec = GemmCodec{};
      raw.panel = 0;
      return summa(raw, false);
    }
  }
  return 0;
}

}  // namespace commpress::model
