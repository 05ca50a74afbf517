// GemmCase: inputs from seeds, the reference computed once, and the element-wise check.
#include "cli/bench_gemm_case.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "cli/bench_gemm_mpi.hpp"
#include "linalg/gemm/local_blas.hpp"
#include "linalg/layout/matrix_fill.hpp"

namespace commpress::cli {

using linalg::DistMatrix;
using linalg::Grid;
using linalg::Trans;

std::string GridShape::str() const {
  return std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(layers);
}

Result<GridShape> parse_grid_shape(std::string_view text) {
  int parts[3] = {1, 1, 1};
  int count = 0;
  std::string_view rest = text;
  while (count < 3) {
    const size_t x = rest.find('x');
    const std::string_view piece = rest.substr(0, x);
    int v = 0;
    auto [end, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), v);
    if (piece.empty() || ec != std::errc() || end != piece.data() + piece.size() || v < 1) break;
    parts[count++] = v;
    if (x == std::string_view::npos) {
      if (count >= 2) return GridShape{parts[0], parts[1], parts[2]};
      break;
    }
    rest = rest.substr(x + 1);
  }
  return Status{
      ErrorCode::invalid_argument,
      "--grid takes PRxPC or PRxPCxC with positive integers, got '" + std::string(text) + "'"};
}

GridShape squarest_grid(int ranks) {
  int rows = 1;
  for (int r = 1; r * r <= ranks; ++r)
    if (ranks % r == 0) rows = r;
  return {rows, ranks / rows, 1};
}

Result<ReferenceKind> parse_reference_kind(std::string_view name) {
  if (name == "auto") return ReferenceKind::automatic;
  if (name == "serial") return ReferenceKind::serial;
  if (name == "scalapack") return ReferenceKind::scalapack;
  if (name == "none") return ReferenceKind::none;
  return Status{
      ErrorCode::invalid_argument,
      "--reference takes auto, serial, scalapack or none, got '" + std::string(name) + "'"};
}

const char* reference_kind_name(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::automatic:
      return "auto";
    case ReferenceKind::serial:
      return "serial";
    case ReferenceKind::scalapack:
      return "scalapack";
    case ReferenceKind::none:
      return "none";
  }
  return "none";
}

namespace {

// The serial reference costs what two multiplies cost, without moving anything, but holds op(A)'s
// rows and op(B)'s columns of a whole C block in double: above this many bytes per rank the
// pdgemm reference (which holds nothing extra) takes over.
constexpr double kSerialReferenceMaxBytes = double(int64_t(1) << 30);

// Rows [r0, r0+rows) x columns [c0, c0+cols) of a seeded matrix, rounded to T as the inputs
// are, in double; `absolute` takes magnitudes.
template <class T>
std::vector<double> window(uint64_t seed, double zeros, int64_t r0, int64_t c0, int64_t rows,
                           int64_t cols, bool absolute) {
  std::vector<double> out(size_t(std::max<int64_t>(1, rows * cols)), 0.0);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) {
      const double v = double(T(linalg::detail::matrix_value(seed, r0 + i, c0 + j, zeros)));
      out[size_t(i + j * rows)] = absolute ? std::fabs(v) : v;
    }
  return out;
}

template <class T>
void copy_abs(const DistMatrix<T>& from, DistMatrix<T>& to, std::vector<T>& store, const Grid& g) {
  to = from;
  const int64_t lr = from.local_rows(g), lc = from.local_cols(g);
  store.assign(size_t(from.ld * std::max<int64_t>(1, lc)), T(0));
  for (int64_t j = 0; j < lc; ++j)
    for (int64_t i = 0; i < lr; ++i)
      store[size_t(i + j * from.ld)] = std::fabs(from.data[i + j * from.ld]);
  to.data = store.data();
}

}  // namespace

template <class T>
Result<std::unique_ptr<GemmCase<T>>> GemmCase<T>::make(const GemmProblem& p, GridShape shape,
                                                       MPI_Comm comm) {
  auto grid = Grid::create(comm, shape.rows, shape.cols, shape.layers);
  if (!grid.ok()) return grid.status();
  std::unique_ptr<GemmCase> c(new GemmCase(p, *grid));
  const bool ta = p.transa == Trans::T, tb = p.transb == Trans::T;
  c->allocate(c->a_, c->a_store_, ta ? p.k : p.m, ta ? p.m : p.k);
  c->allocate(c->b_, c->b_store_, tb ? p.n : p.k, tb ? p.k : p.n);
  c->allocate(c->c_, c->c_store_, p.m, p.n);
  linalg::detail::fill_block(c->a_, c->grid_, p.seed, p.zeros);
  linalg::detail::fill_block(c->b_, c->grid_, p.seed + 1, p.zeros);

  ReferenceKind kind = p.reference;
  if (kind == ReferenceKind::automatic)
    // From global sizes only, so every rank chooses alike.
    kind = double(linalg::BlockSplit{p.m, shape.rows}.block() +
                  linalg::BlockSplit{p.n, shape.cols}.block()) *
                       double(p.k) * sizeof(double) <=
                   kSerialReferenceMaxBytes
               ? ReferenceKind::serial
               : ReferenceKind::scalapack;
  c->reference_ = kind;
  if (kind == ReferenceKind::serial) c->serial_reference();
  if (kind == ReferenceKind::scalapack) COMMPRESS_RETURN_IF_ERROR(c->scalapack_reference());
  return c;
}

template <class T>
void GemmCase<T>::allocate(DistMatrix<T>& view, std::vector<T>& store, int64_t rows, int64_t cols) {
  view.rows = rows;
  view.cols = cols;
  const int64_t lr = view.local_rows(grid_), lc = view.local_cols(grid_);
  view.ld = std::max<int64_t>(1, lr);
  store.assign(size_t(view.ld * std::max<int64_t>(1, lc)), T(0));
  view.data = store.data();
}

template <class T>
void GemmCase<T>::serial_reference() {
  const GemmProblem& p = problem_;
  const int64_t lr = c_.local_rows(grid_), lc = c_.local_cols(grid_), k = p.k;
  const int64_t r0 = c_.row_split(grid_).offset(grid_.row());
  const int64_t c0 = c_.col_split(grid_).offset(grid_.col());
  const bool ta = p.transa == Trans::T, tb = p.transb == Trans::T;
  ref_.assign(size_t(std::max<int64_t>(1, lr * lc)), 0.0);
  magnitude_ = ref_;
  if (lr == 0 || lc == 0) return;
  for (bool absolute : {false, true}) {
    // op(A)'s rows r0.. and op(B)'s columns c0.., in their stored orientation.
    const auto a = ta ? window<T>(p.seed, p.zeros, 0, r0, k, lr, absolute)
                      : window<T>(p.seed, p.zeros, r0, 0, lr, k, absolute);
    const auto b = tb ? window<T>(p.seed + 1, p.zeros, c0, 0, lc, k, absolute)
                      : window<T>(p.seed + 1, p.zeros, 0, c0, k, lc, absolute);
    linalg::detail::local_gemm<double>(
        p.transa, p.transb, lr, lc, k, 1.0, a.data(), std::max<int64_t>(1, ta ? k : lr), b.data(),
        std::max<int64_t>(1, tb ? lc : k), 0.0, absolute ? magnitude_.data() : ref_.data(), lr);
  }
}

template <class T>
Status GemmCase<T>::scalapack_reference() {
  // ScaLAPACK runs on 2-D grids: on a layered grid, layer 0 (which holds the matrices) forms one.
  MPI_Comm sub = MPI_COMM_NULL;
  if (grid_.layers() > 1) {
    int rank = 0;
    MPI_Comm_rank(grid_.comm(), &rank);
    MPI_Comm_split(grid_.comm(), grid_.layer() == 0 ? 0 : MPI_UNDEFINED, rank, &sub);
  }
  const int64_t lr = c_.local_rows(grid_), lc = c_.local_cols(grid_);
  ref_.assign(size_t(std::max<int64_t>(1, lr * lc)), 0.0);
  magnitude_ = ref_;
  Status st;
  if (grid_.layers() == 1 || sub != MPI_COMM_NULL) {
    Grid flat = grid_;
    if (sub != MPI_COMM_NULL) {
      auto g = Grid::create(sub, grid_.rows(), grid_.cols(), 1);
      if (g.ok()) flat = *g;
      st = g.status();
    }
    linalg::GemmOptions opts;
    opts.algorithm = linalg::GemmAlgorithm::ScaLapack;
    std::vector<T> out(c_store_.size()), a_abs, b_abs;
    DistMatrix<T> c = c_, a_mag, b_mag;
    c.data = out.data();
    copy_abs(a_, a_mag, a_abs, flat);
    copy_abs(b_, b_mag, b_abs, flat);
    for (bool absolute : {false, true}) {
      if (!st.ok()) break;
      st = linalg::gemm(problem_.transa, problem_.transb, T(1), absolute ? a_mag : a_,
                        absolute ? b_mag : b_, T(0), c, flat, opts)
               .status();
      std::vector<double>& into = absolute ? magnitude_ : ref_;
      for (int64_t j = 0; j < lc; ++j)
        for (int64_t i = 0; i < lr; ++i) into[size_t(i + j * lr)] = double(c.data[i + j * c.ld]);
    }
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  }
  if (gemm_failed_anywhere(st, grid_.comm())) return st;
  return {};
}

template <class T>
uint64_t GemmCase<T>::panel_broadcast_bytes() const {
  // Every rank receives the A panels of its C rows from the other columns of its grid row, and
  // the B panels of its C columns from the other rows of its grid column; on average a rank
  // sends what it receives.
  const int pr = grid_.rows(), pc = grid_.cols();
  const double a = double(c_.local_rows(grid_)) * double(problem_.k) * (pc - 1) / pc;
  const double b = double(c_.local_cols(grid_)) * double(problem_.k) * (pr - 1) / pr;
  return uint64_t((a + b) * sizeof(T));
}

template <class T>
Result<linalg::GemmReport> GemmCase<T>::run(const linalg::GemmOptions& opts) {
  return linalg::gemm(problem_.transa, problem_.transb, T(1), a_, b_, T(0), c_, grid_, opts);
}

template <class T>
void GemmCase<T>::run_blas() {
  linalg::detail::local_gemm(problem_.transa, problem_.transb, c_.local_rows(grid_),
                             c_.local_cols(grid_), problem_.k, T(1), a_.data, a_.ld, b_.data, b_.ld,
                             T(0), c_.data, c_.ld);
}

template <class T>
void GemmCase<T>::poison_output() {
  std::fill(c_store_.begin(), c_store_.end(), std::numeric_limits<T>::quiet_NaN());
}

template <class T>
ErrorCheck GemmCase<T>::check(double bound) const {
  ErrorCheck out;
  if (reference_ == ReferenceKind::none) return out;
  const int64_t lr = c_.local_rows(grid_), lc = c_.local_cols(grid_);
  // The product's own rounding, present in any summation order; a reference in T carries as
  // much again.
  const double eps = std::numeric_limits<T>::epsilon();
  const double factor =
      (reference_ == ReferenceKind::scalapack ? 2.0 : 1.0) * double(problem_.k + 2) * eps;
  for (int64_t j = 0; j < lc; ++j)
    for (int64_t i = 0; i < lr; ++i) {
      const size_t at = size_t(i + j * lr);
      const double d = std::fabs(double(c_.data[i + j * c_.ld]) - ref_[at]);
      const double allow = factor * magnitude_[at] + 4 * eps;
      out.allowance = std::max(out.allowance, allow);
      if (std::isnan(d)) {
        out.max_error = std::numeric_limits<double>::infinity();
        out.within = false;
        continue;
      }
      out.max_error = std::max(out.max_error, d);
      if (!(d <= bound + allow)) out.within = false;
    }
  return out;
}

template class GemmCase<float>;
template class GemmCase<double>;

}  // namespace commpress::cli
