// Cost and memory models of the distributed triangular solve and Cholesky
// (src/linalg/triangular): critical paths in the seed paper's terms (per-message latency and
// per-byte time of the profile's link, the local BLAS rate, the codec's rates and ratio) with
// the look-ahead's overlap, ScaLAPACK's p?trsm / p?potrf in the same terms without it, and the
// plan that chooses the 2D or the 2.5D solve and its layer count under a memory cap. Pure
// arithmetic; formulas and their derivation in docs/triangular.md.
#pragma once

#include <cstdint>

#include "commpress/gemm_model.hpp"

namespace commpress::model {

struct TriangularScenario {
  int64_t n = 0;     // order of A
  int64_t nrhs = 0;  // B's other dimension (the solve); 0 for Cholesky
  int64_t nb = 64;   // block size
  int elem_size = 8;
  GemmGrid grid;     // rows x cols of one layer, and the layers (the 2.5D solve)
  Link link;
  double flops = kDefaultGemmFlopsF64;  // per rank
  GemmCodec codec;
  bool overlap = true;  // look-ahead (false: ScaLAPACK's order, nothing hidden)
  // The trailing updates' inner dimension (commpress's steps of this many columns, whole
  // blocks, at least one; COMMPRESS_TRIANGULAR_UPDATE_WIDTH); ScaLAPACK's order (overlap
  // false) updates a panel at a time.
  int64_t update_width = 256;
};

struct TriangularCost {
  double seconds = 0;
  double comm = 0;   // time in transfers on the critical path (not hidden)
  double comp = 0;   // local BLAS and codec work on the critical path
  double bytes = 0;  // bytes the busiest rank receives (uncompressed sizes; wire: / ratio)
  double memory = 0; // extra bytes per rank beyond the caller's matrices
};

// The 2D solve op(A) X = B (the right solve is its transpose: same cost with n, nrhs kept).
TriangularCost trsm_2d_cost(const TriangularScenario& s);
// The 2.5D solve: s.grid is one layer's; A copied to each of the s.grid.layers layers, B cut
// into that many slices, each solved by trsm_2d_cost on its layer, and copied back.
TriangularCost trsm_25d_cost(const TriangularScenario& s);
// Right-looking Cholesky with look-ahead (s.nrhs unused).
TriangularCost cholesky_2d_cost(const TriangularScenario& s);
// 2.5D Cholesky on s.grid.layers layers of s.grid's shape (whole process columns of the
// caller's grid): per fat panel of s.grid.cols block columns a sum of its columns over the
// layers onto the owning one, its factorization there (the 2D steps, no look-ahead), each
// other layer's columns sent to it (each rank its rows), and each layer's share of the
// trailing update.
TriangularCost cholesky_25d_cost(const TriangularScenario& s);

// The solve's plan over p processes on the caller's pr x pc grid: layers 1 (2D on that grid)
// or c > 1 dividing p (layers of the most square shape of p / c) with c <= nrhs, whichever
// the model finds fastest among those whose memory fits memory_cap (0: no cap; 2D always
// fits). max_layers = 1 forces 2D; a forced count is evaluated alone.
struct TrsmPlanChoice {
  int layers = 1;
  GemmGrid grid;
  TriangularCost cost;
};
TrsmPlanChoice plan_trsm(const TriangularScenario& base, int forced_layers = 0,
                         double memory_cap = 0);
// The same choice for Cholesky (2D Cholesky on the caller's grid or cholesky_25d_cost on c
// layers of pc / c of its process columns, c dividing pc).
TrsmPlanChoice plan_cholesky(const TriangularScenario& base, int forced_layers = 0,
                             double memory_cap = 0);

}  // namespace commpress::model
