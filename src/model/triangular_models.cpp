// The critical paths of the right-looking triangular algorithms with a look-ahead of one
// (seed paper 003, sections VI and VII, in the terms of gemm_terms.hpp).
//
// Both go in steps of update_width / nb blocks (at least one), as the code does. Solve, block
// row k, R rows still to solve below it: the row's solve (nb^2 r flops, r = nrhs / pc) and its
// broadcast down the process columns are on the critical path, and within a step so is the
// next row's update by it (the other rows of the step are updated beside the next row's
// chain); A's panels (R + nb rows, each rank its own block rows: one broadcast along each
// process row) travel beside the work before them. The step's rows then update the rest
// together (2 W R r / pr flops, W the step's width): the next step's rows first, the rest
// beside the next step's chain. Cholesky, the same with the chain potrf (nb^3 / 3) + diagonal
// broadcast + panel trsm + the rows each rank reads (a broadcast along the process rows, a
// gather in the process columns) and the symmetric update (R^2 W / (pr pc) flops).
// ScaLAPACK's order (overlap false): a panel per step, each term after the other.
#include <algorithm>
#include <cmath>

#include "model/gemm_terms.hpp"
#include "model/triangular_model.hpp"

namespace commpress::model {

namespace {

using detail::bcast_time;
using detail::block_bcast;

// Ring allgather of x bytes in all over P ranks.
double allgather_time(const Link& link, double x, int P) {
  return P > 1 ? (P - 1) * link.time(x / P) : 0.0;
}

// A compressed broadcast's codec work: the root compresses, each receiver decodes.
double codec_work(const GemmCodec& z, double x, int P) {
  return P > 1 ? z.compress_time(x) + z.decompress_time(x) : 0.0;
}

// A Cholesky panel of x bytes brought to a pr x pc grid as the rows each rank reads: its
// block rows broadcast along the process rows, its block columns gathered in the columns
// (compressed, the gather passes the broadcast's frames on: the codec's bytes, no encoding).
double needed_panel_time(const Link& link, const GemmCodec& z, double x, int pr, int pc) {
  return block_bcast(link, z, x / pr, pc) + allgather_time(link, z.wire(x / pc), pr);
}

// Its codec work on a rank's path: the broadcast's (the root encodes, each receiver decodes)
// and the decoding of the blocks the gather brings from the other process rows.
double needed_panel_codec_work(const GemmCodec& z, double x, int pr, int pc) {
  return codec_work(z, x / pr, pc) + (pr > 1 ? z.decompress_time(x / pc * (pr - 1) / pr) : 0.0);
}

// The part of a panel one rank receives that way.
double needed_share(int pr, int pc) { return std::min(1.0, 1.0 / pr + 1.0 / pc); }

double blocks_of(double rows, double nb, int procs) {
  return std::ceil(std::ceil(rows / nb) / procs);
}

// Block columns (rows) per update step: the update width in whole blocks, at least one;
// one in ScaLAPACK's order.
int64_t step_blocks(const TriangularScenario& s) {
  return s.overlap ? std::max<int64_t>(1, s.update_width / std::max<int64_t>(1, s.nb)) : 1;
}

// One step on the critical path: its chain (the local work `chain` and the transfers `net`
// each panel waits for) runs beside `busy` (the last step's pending update and the step's own
// updates of its later columns), and `hidden` (transfers started earlier) behind both; then
// the step's update of the rest, of which the next step's columns (`ahead`) come first and
// the remainder is left `pending` beside the next step's chain. In ScaLAPACK's order nothing
// overlaps and nothing is left pending.
void add_step(TriangularCost& c, bool overlap, double& pending, double beside, double chain,
              double net, double hidden, double update, double ahead) {
  if (!overlap) {
    c.comp += pending + beside + chain + update;
    c.comm += net + hidden;
    pending = 0;
    return;
  }
  const double work = std::max(pending + beside, chain);
  c.comp += work + ahead;
  c.comm += std::max(0.0, std::max(chain + net, hidden) - work);
  pending = update - ahead;
}

}  // namespace

TriangularCost trsm_2d_cost(const TriangularScenario& s) {
  TriangularCost c;
  if (s.n <= 0 || s.nrhs <= 0) return c;
  const int pr = s.grid.rows, pc = s.grid.cols;
  const double e = s.elem_size, nb = double(s.nb), n = double(s.n);
  const double r = std::ceil(double(s.nrhs) / pc);
  const int64_t steps = (s.n + s.nb - 1) / s.nb, width = step_blocks(s);
  double pending = 0;  // the last step's update of the rows past this step's
  for (int64_t k0 = 0; k0 < steps; k0 += width) {
    const int64_t k1 = std::min(steps, k0 + width);
    double chain = 0, net = 0, beside = 0, panels = 0;
    for (int64_t k = k0; k < k1; ++k) {
      const double R = std::max(0.0, n - (k + 1) * nb);
      const double panel = (R + nb) * nb * e;
      const double xrow = nb * r * e;
      // Each rank receives A's panel in its own block rows (a column panel; a transposed
      // solve's row panel travels whole, which this model does not price apart).
      const double net_panel = block_bcast(s.link, s.codec, panel / pr, pc);
      const double cpu_panel = codec_work(s.codec, panel / pr, pc);
      chain += nb * nb * r / s.flops + codec_work(s.codec, xrow, pr);
      net += block_bcast(s.link, s.codec, xrow, pr);
      // The first panel, and every panel in ScaLAPACK's order, is waited for; the others
      // travel beside the updates before them.
      if (k == 0 || !s.overlap) {
        net += net_panel;
        chain += cpu_panel;
      } else {
        panels += net_panel + cpu_panel;
      }
      // Within the step: the next block row's update is on the chain, the later rows' beside it.
      if (k + 1 < k1) {
        chain += 2 * nb * nb * r / s.flops;
        beside += 2 * blocks_of(double(k1 - k - 2) * nb, nb, pr) * nb * nb * r / s.flops;
      }
      c.bytes += panel / pr + xrow;
      c.memory = std::max(c.memory, 2 * (panel + xrow) + (s.codec.enabled ? panel + xrow : 0));
    }
    // The step's rows update the rest together; the next step's rows get it first.
    const double R1 = std::max(0.0, n - double(k1) * nb), W = double(k1 - k0) * nb;
    const double update = 2 * blocks_of(R1, nb, pr) * nb * W * r / s.flops;
    const double ahead = std::min(update, 2 * blocks_of(std::min(R1, double(width) * nb), nb, pr) *
                                              nb * W * r / s.flops);
    add_step(c, s.overlap, pending, beside, chain, net, panels, update, ahead);
  }
  c.seconds = c.comm + c.comp;
  return c;
}

TriangularCost trsm_25d_cost(const TriangularScenario& s) {
  const int layers = std::max(1, s.grid.layers);
  TriangularScenario layer = s;
  layer.nrhs = (s.nrhs + layers - 1) / layers;
  layer.grid.layers = 1;
  TriangularCost c = trsm_2d_cost(layer);
  if (layers == 1) return c;
  const double e = s.elem_size, n = double(s.n), p = double(s.grid.size());
  const double q = double(s.grid.rows * s.grid.cols);
  // A to every layer (each rank receives a 1/q share of it, sends its 1/p share c times),
  // B's slices out and back: bandwidth of the busiest rank, one message per copy.
  const double a_copy = n * n * e / q, b_slice = n * double(layer.nrhs) * e / q;
  const double copies = layers * s.link.time(n * n * e / p) + 2 * s.link.time(b_slice);
  c.comm += std::max(copies, s.link.time(a_copy));
  c.seconds = c.comm + c.comp;
  c.bytes += a_copy + 2 * b_slice;
  c.memory += a_copy + b_slice;
  return c;
}

TriangularCost cholesky_2d_cost(const TriangularScenario& s) {
  TriangularCost c;
  if (s.n <= 0) return c;
  const int pr = s.grid.rows, pc = s.grid.cols;
  const double e = s.elem_size, nb = double(s.nb), n = double(s.n);
  const int64_t steps = (s.n + s.nb - 1) / s.nb, width = step_blocks(s);
  double pending = 0;  // the last step's update of the block columns past this step's
  for (int64_t k0 = 0; k0 < steps; k0 += width) {
    const int64_t k1 = std::min(steps, k0 + width);
    double chain = 0, net = 0, beside = 0;
    for (int64_t k = k0; k < k1; ++k) {
      const double R = std::max(0.0, n - (k + 1) * nb);
      const double panel = (R + nb) * nb * e;
      const double rows = blocks_of(R, nb, pr) * nb;
      chain += nb * nb * nb / 3 / s.flops + blocks_of(R, nb, pr) * nb * nb * nb / s.flops +
               needed_panel_codec_work(s.codec, panel, pr, pc);
      net += bcast_time(s.link, nb * nb * e, pr) + needed_panel_time(s.link, s.codec, panel, pr, pc);
      // Within the step: the next block column's update is on the chain (it is factored
      // next), the step's later columns' beside the next panel's chain.
      if (k + 1 < k1) {
        chain += 2 * rows * nb * nb / s.flops;
        beside += 2 * rows * blocks_of(double(k1 - k - 2) * nb, nb, pc) * nb * nb / s.flops;
      }
      c.bytes += panel * needed_share(pr, pc);
      c.memory = std::max(c.memory, 2 * panel + rows * nb * e + (s.codec.enabled ? panel : 0));
    }
    // The step's panels update the rest together (the lower half of 2 rows cols W), the next
    // step's block columns first (the look-ahead), the rest beside the next step's chain.
    const double R1 = std::max(0.0, n - double(k1) * nb), W = double(k1 - k0) * nb;
    const double rows = blocks_of(R1, nb, pr) * nb, cols = blocks_of(R1, nb, pc) * nb;
    const double update = rows * cols * W / s.flops;
    const double ahead =
        std::min(update, 2 * rows * blocks_of(std::min(R1, double(width) * nb), nb, pc) * nb * W /
                             s.flops);
    add_step(c, s.overlap, pending, beside, chain, net, 0, update, ahead);
  }
  c.seconds = c.comm + c.comp;
  return c;
}

TriangularCost cholesky_25d_cost(const TriangularScenario& s) {
  const int layers = std::max(1, s.grid.layers);
  if (layers == 1) return cholesky_2d_cost(s);
  TriangularCost c;
  if (s.n <= 0) return c;
  const int pr = s.grid.rows, qc = s.grid.cols;
  const double e = s.elem_size, nb = double(s.nb), n = double(s.n), q = double(pr * qc);
  const int64_t steps = (s.n + s.nb - 1) / s.nb;
  // Fat panels of one layer's qc block columns; nothing of one overlaps the next.
  for (int64_t k0 = 0; k0 < steps; k0 += qc) {
    const int64_t width = std::min<int64_t>(qc, steps - k0);
    const double R0 = std::max(0.0, n - k0 * nb);
    const double fat = R0 * double(width) * nb * e / q;  // one rank's share of the fat columns
    if (k0 > 0) {
      c.comm += detail::reduce_time(s.link, 0, fat, layers);
      c.bytes += fat;
    }
    double panels = 0;
    for (int64_t t = 0; t < width; ++t) {
      const double R = std::max(0.0, n - (k0 + t + 1) * nb);
      const double panel = (R + nb) * nb * e;
      panels += panel;
      c.comp += nb * nb * nb / 3 / s.flops + blocks_of(R, nb, pr) * nb * nb * nb / s.flops;
      c.comm += bcast_time(s.link, nb * nb * e, pr);
      const bool other_layer = t % layers != 0;
      // Spread over the owning layer, or (the last column, applied elsewhere) its column's
      // blocks sent to their counterparts and spread over the applying layer.
      if (other_layer && t + 1 == width) c.comm += s.link.time(panel / pr);
      c.comm += needed_panel_time(s.link, s.codec, panel, pr, qc);
      c.comp += needed_panel_codec_work(s.codec, panel, pr, qc);
      c.bytes += panel * needed_share(pr, qc);
      if (other_layer && t + 1 < width) {
        // Spread here, and each rank sends its counterpart there the rows it holds.
        c.comm += s.link.time(panel * needed_share(pr, qc));
        c.bytes += panel * needed_share(pr, qc);
      }
    }
    // Each layer's share of the fat panel's trailing update.
    const double R1 = std::max(0.0, n - double(k0 + width) * nb);
    const double share = std::ceil(double(width) / layers);
    c.comp += share * blocks_of(R1, nb, pr) * nb * blocks_of(R1, nb, qc) * nb * nb / s.flops;
    c.memory = std::max(c.memory, panels + fat);
  }
  c.memory += n * n * e / q;  // the layer's copy
  c.seconds = c.comm + c.comp;
  return c;
}

namespace {

// The fastest of the 2D algorithm on the caller's grid and the layered one for each c
// dividing p whose memory fits the cap.
// column_layers: the layers are c whole process columns of the caller's grid (c divides its
// columns), else p / c processes of the most square shape.
template <class Cost2D, class Cost25D>
TrsmPlanChoice choose_layers(const TriangularScenario& base, int forced_layers,
                             double memory_cap, bool split_rhs, bool column_layers, Cost2D two_d,
                             Cost25D layered) {
  const int p = base.grid.rows * base.grid.cols * std::max(1, base.grid.layers);
  TrsmPlanChoice best;
  bool found = false;
  for (int c = 1; c <= p; ++c) {
    if (p % c != 0) continue;
    if (forced_layers > 0 && c != forced_layers) continue;
    if (split_rhs && c > 1 && c > base.nrhs) continue;
    if (column_layers && c > 1 && base.grid.cols % c != 0) continue;
    TriangularScenario s = base;
    if (c == 1) {
      s.grid = {base.grid.rows, base.grid.cols * std::max(1, base.grid.layers), 1};
    } else if (column_layers) {
      s.grid = {base.grid.rows, base.grid.cols / c, c};
    } else {
      const int q = p / c;
      int rows = 1;
      for (int r = 1; r * r <= q; ++r)
        if (q % r == 0) rows = r;
      s.grid = {rows, q / rows, c};
    }
    const TriangularCost cost = c == 1 ? two_d(s) : layered(s);
    if (c > 1 && memory_cap > 0 && cost.memory > memory_cap) continue;
    if (!found || cost.seconds < best.cost.seconds) {
      best = {c, s.grid, cost};
      found = true;
    }
  }
  return best;
}

}  // namespace

TrsmPlanChoice plan_cholesky(const TriangularScenario& base, int forced_layers,
                             double memory_cap) {
  return choose_layers(base, forced_layers, memory_cap, false, true, cholesky_2d_cost,
                       cholesky_25d_cost);
}

TrsmPlanChoice plan_trsm(const TriangularScenario& base, int forced_layers, double memory_cap) {
  return choose_layers(base, forced_layers, memory_cap, true, false, trsm_2d_cost,
                       trsm_25d_cost);
}

}  // namespace commpress::model
