// plan_gemm: what gemm will run. Forced algorithms pass through; Auto takes the first
// algorithm the grid can run (Cannon on square 2-D grids, SUMMA otherwise, their 2.5D forms
// on layered grids) until the cost models choose (issue: models and choice).
#include "commpress/linalg.hpp"

namespace commpress::linalg {

namespace {

GemmAlgorithm default_for(const Grid& g) {
  const bool square = g.rows() == g.cols();
  if (g.layers() > 1) return square ? GemmAlgorithm::Cannon25D : GemmAlgorithm::Summa25D;
  return square ? GemmAlgorithm::Cannon : GemmAlgorithm::Summa;
}

}  // namespace

Result<GemmPlan> plan_gemm(Trans, Trans, int64_t, int64_t, int64_t, Dtype, const Grid& grid,
                           const GemmOptions& opts) {
  GemmPlan plan;
  plan.algorithm = opts.algorithm == GemmAlgorithm::Auto ? default_for(grid) : opts.algorithm;
  plan.grid_rows = grid.rows();
  plan.grid_cols = grid.cols();
  plan.layers = grid.layers();
  plan.codec = opts.codec == "auto" || opts.codec.empty() ? "none" : opts.codec;
  return plan;
}

Result<GemmPlan> plan_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, Dtype dtype,
                           MPI_Comm comm, const GemmOptions& opts) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  auto grid = Grid::create(comm, rows, p / rows, 1);
  if (!grid.ok()) return grid.status();
  return plan_gemm(ta, tb, m, n, k, dtype, *grid, opts);
}

}  // namespace commpress::linalg
