// The pieces every gemm formula is written in: the largest local blocks of a grid, broadcasts
// and sums over a group of ranks, and the codec's work on a block. Internal to src/model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "commpress/gemm_model.hpp"

namespace commpress::model::detail {

// ceil(n / parts): the largest part of the block distribution (what the slowest rank holds).
inline double largest_part(int64_t n, int parts) {
  return n > 0 && parts > 0 ? double((n + parts - 1) / parts) : 0.0;
}

inline int levels(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

// MPI_Bcast of x bytes over P ranks: the better of a binomial tree, ceil(log2 P) T(x), and
// van de Geijn's scatter + ring allgather, sum_j T(x / 2^j) + (P - 1) T(x / P) (what MPI
// picks for large messages); the model is optimistic about MPI, as for the collectives.
inline double bcast_time(const Link& link, double x, int P) {
  if (P <= 1) return 0;
  const int L = levels(P);
  const double binomial = L * link.time(x);
  double scatter = 0;
  for (int j = 1; j <= L; ++j) scatter += link.time(x / double(1 << j));
  return std::min(binomial, scatter + (P - 1) * link.time(x / P));
}

// A broadcast of one block as the algorithms send it: raw, or its frame's length then the
// frame (compressed once by the root; the receivers' decoding is charged separately).
inline double block_bcast(const Link& link, const GemmCodec& c, double x, int P) {
  if (P <= 1) return 0;
  if (!c.enabled) return bcast_time(link, x, P);
  return bcast_time(link, 8, P) + bcast_time(link, c.wire(x), P);
}

// MPI_Reduce (sum) of x bytes over P ranks: the better of a binomial tree,
// ceil(log2 P)(T(x) + x gamma), and Rabenseifner's halving reduce-scatter + binomial gather,
// sum_j (2 T(x / 2^j) + (x / 2^j) gamma).
inline double reduce_time(const Link& link, double gamma, double x, int P) {
  if (P <= 1) return 0;
  const int L = levels(P);
  const double binomial = L * (link.time(x) + x * gamma);
  double halving = 0;
  for (int j = 1; j <= L; ++j) {
    const double part = x / double(1 << j);
    halving += 2 * link.time(part) + part * gamma;
  }
  return std::min(binomial, halving);
}

// The largest local blocks of one pr x pc layer, in elements.
struct LayerBlocks {
  double mb, nb;  // rows of C (and op(A)), columns of C (and op(B))
  double ka;      // op(A)'s k columns per grid column
  double kb;      // op(B)'s k rows per grid row
};
inline LayerBlocks layer_blocks(const GemmScenario& s) {
  return {largest_part(s.m, s.grid.rows), largest_part(s.n, s.grid.cols),
          largest_part(s.k, s.grid.cols), largest_part(s.k, s.grid.rows)};
}

inline double product_time(const GemmScenario& s, double m, double n, double k) {
  return 2.0 * m * n * k / s.flops;
}

// SUMMA's panels: total count over k and their mean width (the bandwidth terms are exact
// with the mean; only a partial last panel's extra latency is rounded away).
struct Panels {
  double count = 0, width = 0, widest = 0;
};
inline Panels summa_panels(const GemmScenario& s) {
  if (s.k <= 0) return {};
  const int64_t w = s.panel > 0 ? std::min(s.panel, s.k) : default_summa_panel(s.k, s.grid);
  const double count = double((s.k + w - 1) / w);
  return {count, double(s.k) / count, double(w)};
}

// A replicated layer's partial C block (the 2.5D algorithms), 0 on one layer.
inline double partial_c_bytes(const GemmScenario& s) {
  if (s.grid.layers <= 1) return 0;
  const LayerBlocks b = layer_blocks(s);
  return b.mb * b.nb * s.elem_size;
}

// Every algorithm's cost model, as its table row names them (gemm_cannon.cpp, gemm_summa.cpp,
// gemm_srumma.cpp): predicted seconds, and extra bytes per rank (the largest over the ranks:
// what GemmPlan::memory_bytes reports and what Auto holds against the memory cap).
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  double model_time(const GemmScenario& s);                                                    \
  double model_memory(const GemmScenario& s);
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM

}  // namespace commpress::model::detail
