// Cannon and 2.5D Cannon, and compressed Cannon's closed form and threshold (Jencka & Bienz).
//
// A q x q layer does `steps` products with a shift between two of them; every shift moves
// the A block one hop along its grid row and the B block one hop along its column. The skew
// before them sends each block straight to its place (cannon_steps.cpp), one message per
// operand, so it costs one shift: steps shifts in all. Jencka & Bienz's closed form
// (compressed_cannon_time) charges the skew as q hop-by-hop shifts, 2q in all; the general
// model is that form with q shifts (each with one latency where both messages take one link,
// below). Compressed, the blocks are compressed once before the
// skew, the frames circulate and each step decodes the pair it multiplies.
//
// Placement (gemm_terms.hpp, GridLine): A's shift runs along a row, B's along a column. With
// several ranks a node a row may stay inside one node while a column crosses nodes with all
// the node's ranks sending at once; the two shifts then take different links side by side.
// On one link (one rank a node, or no nodes known) both are in flight at once: one latency,
// the bytes of both.
//
// Memory: two buffers per operand (the block in use and the one arriving) sized for the
// largest encoding (a frame at its bound when compressed, the raw block otherwise), plus a
// decoded work pair. 2.5D Cannon receives its replicas into those buffers and adds a partial
// C block.
#include <cmath>

#include "model/gemm_terms.hpp"

namespace commpress::model {

double GemmCodec::compress_time(double bytes) const {
  if (!enabled || bytes <= 0) return 0;
  return compress > 0 ? call_overhead + bytes / compress : INFINITY;
}

double GemmCodec::decompress_time(double bytes) const {
  if (!enabled || bytes <= 0) return 0;
  return decompress > 0 ? call_overhead + bytes / decompress : INFINITY;
}

double compressed_cannon_time(int p, double A, const LinkParams& link, double r, double c,
                              double d) {
  const double q = std::sqrt(double(std::max(p, 1)));
  // c = d = infinity (1/c = 1/d = 0) is the raw Cannon; a zero rate is a codec that cannot run.
  const double codec = (c > 0 ? 1 / (c * q) : INFINITY) + (d > 0 ? 1 / d : INFINITY);
  return 4 * q * link.alpha + (2 * A / q) * (2 * link.beta / r + codec);
}

double compressed_cannon_threshold(int p, double r, double c, double d) {
  if (!(r > 1) || !(c > 0) || !(d > 0)) return INFINITY;
  const double q = std::sqrt(double(std::max(p, 1)));
  return r / (r - 1) * (d + c * q) / (2 * d * c * q);
}

namespace detail {

double cannon_time(const GemmScenario& s) {
  const int q = s.grid.rows, c = std::max(1, s.grid.layers);
  const LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size;
  // Each layer takes an equal share of the q steps (the first layers one more when c does
  // not divide q): the slowest layer sets the pace.
  const int steps = (q + c - 1) / c;
  const double ka = largest_part(s.k, q);
  const double a = b.mb * ka * e, bb = ka * b.nb * e;
  const double product = product_time(s, b.mb, b.nb, ka);
  if (s.k <= 0) return 0;
  if (q == 1 && c == 1) return product;
  const GemmCodec& z = s.codec;
  const double compress_once = z.compress_time(a) + z.compress_time(bb);
  // Replication over the layers: layer 0's blocks (frames when compressed) to every layer,
  // along the fibers.
  const GridLine fiber = fiber_line(s);
  double replicate = 0;
  if (c > 1) replicate = fiber.bcast(z, a) + fiber.bcast(z, bb);
  // C's partial products summed over the layers onto layer 0.
  const double reduce = fiber.reduce(s.gamma, b.mb * b.nb * e);
  if (q == 1) return compress_once + replicate + product + reduce;
  const GridLine row = row_line(s), col = col_line(s);
  const double shift = shift_pair(row, z.wire(a), col, z.wire(bb));
  const double cpu = product + z.decompress_time(a) + z.decompress_time(bb);
  // The skew, then steps - 1 shifts each beside (overlap) or after a product, then the last.
  const double step = s.overlap ? std::max(shift, cpu) : shift + cpu;
  return compress_once + replicate + shift + (steps - 1) * step + cpu + reduce;
}

double cannon_memory(const GemmScenario& s) {
  const LayerBlocks b = layer_blocks(s);
  const double e = s.elem_size, ka = largest_part(s.k, s.grid.rows);
  const double a = b.mb * ka * e, bb = ka * b.nb * e;
  return 2 * (s.codec.frame_bound(a) + s.codec.frame_bound(bb)) + a + bb + partial_c_bytes(s);
}

}  // namespace detail

}  // namespace commpress::model
