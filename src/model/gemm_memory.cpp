// Extra memory per rank (beyond the caller's A, B and C blocks), the largest over the ranks:
// what GemmPlan::memory_bytes reports and what Auto holds against the memory cap.
//
// - Cannon: two buffers per operand (the block in use and the one arriving) sized for the
//   largest encoding (a frame at its bound when compressed, the raw block otherwise), plus a
//   decoded work pair. 2.5D Cannon receives its replicas into those buffers and adds a
//   partial C block.
// - SUMMA: one pair of panel pieces (two with look-ahead), and their frames when compressed;
//   2.5D SUMMA adds a partial C block and the replicated pieces of the layer's own panels
//   (1/c of the A and B blocks): memory(c) = (|A| + |B|) / p + |C| c / p on top of the
//   panels (the full replication of Solomonik & Demmel, (|A| + |B| + |C|) c / p, is what
//   2.5D Cannon holds).
// - SRUMMA: the copy of the rank's own blocks into the shared window (when the domain has
//   other ranks) and two buffers for the largest task's remote pieces (one without overlap,
//   none when every piece is inside the domain).
// - ScaLAPACK: one pair of panel pieces as pdgemm's workspace.
#include <cmath>

#include "model/gemm_terms.hpp"

namespace commpress::model {

namespace {

using detail::layer_blocks;

double pair(const GemmCodec& z, double a, double b, int copies) {
  if (!z.enabled) return copies * (a + b);
  return copies * (z.frame_bound(a) + z.frame_bound(b)) + a + b;
}

double partial_c(const GemmScenario& s) {
  if (s.grid.layers <= 1) return 0;
  const detail::LayerBlocks b = layer_blocks(s);
  return b.mb * b.nb * s.elem_size;
}

double cannon(const GemmScenario& s) {
  const detail::LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size, ka = detail::largest_part(s.k, s.grid.rows);
  const double a = b.mb * ka * e, bb = ka * b.nb * e;
  return 2 * (s.codec.frame_bound(a) + s.codec.frame_bound(bb)) + a + bb + partial_c(s);
}

double summa(const GemmScenario& s, bool overlap) {
  const detail::LayerBlocks b = layer_blocks(s);
  const double w = detail::summa_panels(s).widest, e = s.elem_size;
  // Layer 0 ships each layer only the pieces of its own panels: its share of the blocks.
  const detail::Panels panels = detail::summa_panels(s);
  const double share = panels.count > 0 ? std::ceil(panels.count / s.grid.layers) / panels.count : 0;
  const double replicas = s.grid.layers > 1 ? (b.mb * b.ka + b.kb * b.nb) * e * share : 0;
  return pair(s.codec, b.mb * w * e, w * b.nb * e, overlap ? 2 : 1) + replicas + partial_c(s);
}

double srumma(const GemmScenario& s) {
  const detail::LayerBlocks b = layer_blocks(s);
  const int domain = std::max(1, s.ranks_per_node);
  const double own = domain > 1 && s.grid.size() > 1 ? (b.mb * b.ka + b.kb * b.nb) * s.elem_size : 0;
  return own + srumma_cost(s).fetch_buffer_bytes;
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
