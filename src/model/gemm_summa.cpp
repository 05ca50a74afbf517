// SUMMA and 2.5D SUMMA (van de Geijn & Watts; Solomonik & Demmel), and ScaLAPACK's pdgemm.
//
// Each panel of k is broadcast along the grid rows (op(A)'s piece, mb x kb) and along the grid
// columns (op(B)'s piece, kb x nb), then every rank multiplies it in. Broadcasts are charged as
// MPI_Bcast as Open MPI's table runs it on the line's nodes, the links between nodes shared
// by the node's ranks (GridLine::bcast; pdgemm's BLACS broadcasts are MPI_Bcast too); with
// look-ahead as MPI_Ibcast, the tree its MPI library builds for it (a flat
// tree on SMPI and on Open MPI's small lines, binomial on Open MPI's others). Compressed, the
// owner compresses each panel piece once, broadcasts its length and its frame, and every
// receiver decodes it; that codec work sits with the product on the rank's cores. Look-ahead
// (overlap) posts panel t + 1's broadcasts before panel t's product: the first panel is
// exposed, the others advance at the pace of the slower of network and cores.
//
// Memory: one pair of panel pieces (two with look-ahead), and their frames when compressed;
// 2.5D SUMMA adds a partial C block and the replicated pieces of the layer's own panels (1/c of
// the A and B blocks): memory(c) = (|A| + |B|) / p + |C| c / p on top of the panels (the full
// replication of Solomonik & Demmel, (|A| + |B| + |C|) c / p, is what 2.5D Cannon holds).
// ScaLAPACK: one pair of panel pieces as pdgemm's workspace.
#include <cmath>

#include "model/gemm_terms.hpp"

namespace commpress::model::detail {

namespace {

double panel_loop(const GemmScenario& s, double panels, double count, double width,
                  bool overlap) {
  if (panels <= 0) return 0;
  const LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size;
  const int pr = s.grid.rows, pc = s.grid.cols;
  const double ap = b.mb * width * e, bp = width * b.nb * e;
  const GemmCodec& z = s.codec;
  // A's piece along the grid row, B's along the column, posted together.
  const GridLine row = row_line(s), col = col_line(s);
  double cpu = product_time(s, b.mb, b.nb, width);
  if (pc > 1) cpu += z.compress_time(ap) + z.decompress_time(ap);
  if (pr > 1) cpu += z.compress_time(bp) + z.decompress_time(bp);
  // Without look-ahead each panel's broadcasts are blocking MPI_Bcasts, which overlap from
  // panel to panel along a line (panel_broadcasts.cpp); a layer multiplies every c-th panel.
  if (!overlap) {
    const int n = int(panels), every = std::max(1, s.grid.layers);
    return side_by_side(row, row.bcast_panels(z, ap, n, count, every), col,
                        col.bcast_panels(z, bp, n, count, every)) +
           panels * cpu;
  }
  // With look-ahead the pieces go by MPI_Ibcast, whose trees are not MPI_Bcast's. In a flat
  // tree only the root sends, and a panel's row and column roots are different ranks but
  // one, the grid's diagonal rank: so the loop advances at the slower tree's pace, and the
  // diagonal's two trees, one after the other on its link, delay its row and column once.
  const double tr = row.ibcast(z, ap), tc = col.ibcast(z, bp);
  const double first = side_by_side(row, tr, col, tc);
  const bool flat = ibcast_tree(pr) == IbcastTree::flat && ibcast_tree(pc) == IbcastTree::flat;
  // A compressed piece's length goes first by a blocking MPI_Bcast, the row's then the
  // column's on every rank, so the two lengths follow each other whatever the trees do.
  const double lr = row.length_bcast(z), lc = col.length_bcast(z);
  const double net = flat ? std::max(tr - lr, tc - lc) + lr + lc : first;
  return first + cpu + (panels - 1) * std::max(net, cpu);
}

double pair(const GemmCodec& z, double a, double b, int copies) {
  if (!z.enabled) return copies * (a + b);
  return copies * (z.frame_bound(a) + z.frame_bound(b)) + a + b;
}

double panel_memory(const GemmScenario& s, bool overlap) {
  const LayerBlocks b = layer_blocks(s);
  const Panels panels = summa_panels(s);
  const double e = s.elem_size;
  // Layer 0 ships each layer only the pieces of its own panels: its share of the blocks.
  const double share = panels.count > 0 ? std::ceil(panels.count / s.grid.layers) / panels.count : 0;
  const double replicas = s.grid.layers > 1 ? (b.mb * b.ka + b.kb * b.nb) * e * share : 0;
  return pair(s.codec, b.mb * panels.widest * e, panels.widest * b.nb * e, overlap ? 2 : 1) +
         replicas + partial_c_bytes(s);
}

// pdgemm as the model sees it: SUMMA without look-ahead, raw, at the default panel width.
GemmScenario as_pdgemm(const GemmScenario& s) {
  GemmScenario raw = s;
  raw.codec = GemmCodec{};
  raw.panel = 0;
  return raw;
}

}  // namespace

double summa_time(const GemmScenario& s) {
  const int c = std::max(1, s.grid.layers);
  const Panels panels = summa_panels(s);
  if (panels.count <= 0) return 0;
  // Panels go round robin over the layers: the busiest layer multiplies ceil(count / c).
  const double per_layer = std::ceil(panels.count / c);
  double t = panel_loop(s, per_layer, panels.count, panels.width, s.overlap);
  if (c > 1) {
    // Layer 0 sends every other layer the pieces of that layer's panels (a 1/c share of its
    // A and B blocks, compressed once when a codec is on, decoded on arrival), one message
    // after the other; the partial C blocks are summed onto layer 0.
    const LayerBlocks b = layer_blocks(s);
    const double e = s.elem_size;
    const double share = per_layer / panels.count * (b.mb * b.ka + b.kb * b.nb) * e;
    const GemmCodec& z = s.codec;
    const GridLine fiber = fiber_line(s);
    t += (c - 1) * (z.compress_time(share) + fiber.hop(8) + fiber.hop(z.wire(share))) +
         z.decompress_time(share);
    t += fiber.reduce(s.gamma, b.mb * b.nb * e);
  }
  return t;
}

double summa_memory(const GemmScenario& s) { return panel_memory(s, s.overlap); }

double scalapack_time(const GemmScenario& s) {
  const GemmScenario raw = as_pdgemm(s);
  const Panels panels = summa_panels(raw);
  return panel_loop(raw, panels.count, panels.count, panels.width, false);
}

double scalapack_memory(const GemmScenario& s) { return panel_memory(as_pdgemm(s), false); }

}  // namespace commpress::model::detail
