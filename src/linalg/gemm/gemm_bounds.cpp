#include "linalg/gemm/gemm_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "comm/session/private_comm.hpp"

namespace commpress::linalg::detail {

namespace {

template <class T>
Result<codec::ValueRange> global_range(const DistMatrix<T>& m, const Grid& g) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const int64_t rows = m.local_rows(g), cols = m.local_cols(g);
  for (int64_t j = 0; j < cols && rows > 0; ++j) {
    codec::ValueRange r = codec::finite_range(m.data + j * m.ld, size_t(rows), codec::dtype_of<T>());
    if (!r.any_finite) continue;
    lo = std::min(lo, r.min);
    hi = std::max(hi, r.max);
  }
  double buf[2] = {lo, -hi};
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, 2, MPI_DOUBLE, MPI_MIN, g.comm()));
  codec::ValueRange out;
  out.any_finite = buf[0] <= -buf[1];
  if (out.any_finite) {
    out.min = buf[0];
    out.max = -buf[1];
  }
  return out;
}

// The plan's bound for one operand, with a REL bound resolved against its global range.
template <class T>
Result<codec::ErrorBound> block_bound(const DistMatrix<T>& m, const codec::ErrorBound& b,
                                      const Grid& g) {
  if (b.mode != codec::BoundMode::rel) return b;
  auto range = global_range(m, g);
  if (!range.ok()) return range.status();
  // 0 (a constant matrix, or a bound too small for T) sends the blocks exact.
  const double abs = codec::rel_to_abs(b.value, *range, codec::dtype_of<T>());
  return abs > 0 ? codec::ErrorBound::absolute(abs) : codec::ErrorBound::lossless();
}

// Sums of |m| along its local rows (per column, reduced over col_comm) or along its local
// columns (per row, reduced over row_comm); returns the largest such global sum.
template <class T>
Result<double> max_abs_line_sum(const DistMatrix<T>& m, const Grid& g, bool per_column) {
  const int64_t rows = m.local_rows(g), cols = m.local_cols(g);
  std::vector<double> sums(size_t(per_column ? cols : rows), 0.0);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      sums[size_t(per_column ? j : i)] += std::fabs(double(m.data[i + j * m.ld]));
  // The lines' count is the same on every rank of the communicator (one grid column or row),
  // so a rank holding none of the matrix (2.5D layers above 0) skips with all its peers:
  // SMPI's Open MPI allreduce divides by the count and dies on zero.
  if (!sums.empty())
    COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_DOUBLE,
                                MPI_SUM, per_column ? g.col_comm() : g.row_comm()));
  double best = 0;
  for (double s : sums) best = std::max(best, s);
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_DOUBLE, MPI_MAX, g.comm()));
  return best;
}

}  // namespace

template <class T>
Result<InputBounds> resolve_input_bounds(const GemmCall<T>& call) {
  InputBounds out;
  auto a = block_bound(*call.a, call.plan->bound_a, *call.grid);
  if (!a.ok()) return a.status();
  auto b = block_bound(*call.b, call.plan->bound_b, *call.grid);
  if (!b.ok()) return b.status();
  out.a = *a;
  out.b = *b;
  return out;
}

template <class T>
Result<double> bound_on_c(const GemmCall<T>& call) {
  const double ea = call.block_bound_a.value, eb = call.block_bound_b.value;
  if (ea == 0 && eb == 0) return 0.0;
  // Row sums of op(A): along A's columns when not transposed, along its rows when it is.
  auto a = max_abs_line_sum(*call.a, *call.grid, call.transa == Trans::T);
  if (!a.ok()) return a.status();
  auto b = max_abs_line_sum(*call.b, *call.grid, call.transb == Trans::N);
  if (!b.ok()) return b.status();
  return std::fabs(double(call.alpha)) * (ea * *b + eb * *a + double(call.k) * ea * eb);
}

template Result<InputBounds> resolve_input_bounds<float>(const GemmCall<float>&);
template Result<InputBounds> resolve_input_bounds<double>(const GemmCall<double>&);
template Result<double> bound_on_c<float>(const GemmCall<float>&);
template Result<double> bound_on_c<double>(const GemmCall<double>&);

}  // namespace commpress::linalg::detail
