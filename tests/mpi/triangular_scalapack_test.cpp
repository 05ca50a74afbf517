// commpress_p?trsm and commpress_p?potrf against ScaLAPACK's own p?trsm_ and p?potrf_ on
// copies of the same block-cyclic data, in the same run: every SIDE/UPLO/TRANSA/DIAG that
// p?trsm accepts, sizes that are no multiple of the block or the grid, submatrix offsets,
// block sizes and source processes that let sub(A) and sub(B) be used in place and ones that
// need a copy; Cholesky's residual ||A - L L^T|| / (||A|| n eps), INFO on matrices that are
// not positive definite, and arguments that are invalid or differ across processes (every
// process fails alike, nothing is written, nobody hangs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "commpress/scalapack.h"
#include "blacs_test_support.hpp"
#include "mpi_harness.hpp"

extern "C" {
void pdtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
             const double*, const double*, const int*, const int*, const int*, double*,
             const int*, const int*, const int*);
void pstrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
             const float*, const float*, const int*, const int*, const int*, float*, const int*,
             const int*, const int*);
void pdpotrf_(const char*, const int*, double*, const int*, const int*, const int*, int*);
void pspotrf_(const char*, const int*, float*, const int*, const int*, const int*, int*);
double pdlange_(const char*, const int*, const int*, const double*, const int*, const int*,
                const int*, double*);
}

namespace commpress::testing {
namespace {

void ref_trsm(const char* s, const char* u, const char* t, const char* d, const int* m,
              const int* n, const double* al, const double* a, const int* ia, const int* ja,
              const int* da, double* b, const int* ib, const int* jb, const int* db) {
  pdtrsm_(s, u, t, d, m, n, al, a, ia, ja, da, b, ib, jb, db);
}
void ref_trsm(const char* s, const char* u, const char* t, const char* d, const int* m,
              const int* n, const float* al, const float* a, const int* ia, const int* ja,
              const int* da, float* b, const int* ib, const int* jb, const int* db) {
  pstrsm_(s, u, t, d, m, n, al, a, ia, ja, da, b, ib, jb, db);
}
void our_trsm(const char* s, const char* u, const char* t, const char* d, const int* m,
              const int* n, const double* al, const double* a, const int* ia, const int* ja,
              const int* da, double* b, const int* ib, const int* jb, const int* db) {
  commpress_pdtrsm(s, u, t, d, m, n, al, a, ia, ja, da, b, ib, jb, db);
}
void our_trsm(const char* s, const char* u, const char* t, const char* d, const int* m,
              const int* n, const float* al, const float* a, const int* ia, const int* ja,
              const int* da, float* b, const int* ib, const int* jb, const int* db) {
  commpress_pstrsm(s, u, t, d, m, n, al, a, ia, ja, da, b, ib, jb, db);
}
void ref_potrf(const char* u, const int* n, double* a, const int* ia, const int* ja,
               const int* da, int* info) {
  pdpotrf_(u, n, a, ia, ja, da, info);
}
void ref_potrf(const char* u, const int* n, float* a, const int* ia, const int* ja,
               const int* da, int* info) {
  pspotrf_(u, n, a, ia, ja, da, info);
}
void our_potrf(const char* u, const int* n, double* a, const int* ia, const int* ja,
               const int* da, int* info) {
  commpress_pdpotrf(u, n, a, ia, ja, da, info);
}
void our_potrf(const char* u, const int* n, float* a, const int* ia, const int* ja,
               const int* da, int* info) {
  commpress_pspotrf(u, n, a, ia, ja, da, info);
}

// The grid over the whole world and its transpose (more process rows than columns).
std::vector<std::pair<int, int>> shapes() {
  BlacsGrid probe = world_grid();
  std::vector<std::pair<int, int>> out{{probe.nprow, probe.npcol}};
  if (probe.nprow != probe.npcol) out.push_back({probe.npcol, probe.nprow});
  return out;
}

// A layout of one operand: blocks, sources, where the submatrix starts, spare rows/cols.
struct Layout {
  int mb, nb, rsrc, csrc, i, j;
};

// Layouts in turn: in place (square blocks, block-aligned start), aligned with shifted
// sources, and ones that need a copy (MB != NB, unaligned start).
const Layout kALayouts[] = {{4, 4, 0, 0, 1, 1}, {3, 3, 1, 1, 4, 7}, {2, 3, 1, 0, 2, 3}};
// p?potrf's: ScaLAPACK takes only MB = NB with IA, JA on block boundaries.
const Layout kPotrfLayouts[] = {{4, 4, 0, 0, 1, 1}, {3, 3, 1, 1, 4, 7}, {5, 5, 1, 0, 6, 11}};
// Ones ScaLAPACK refuses (MB != NB, a start inside a block): commpress factors them in a copy,
// checked by INFO and the residual alone.
const Layout kOnlyCommpress[] = {{2, 3, 1, 0, 2, 3}, {3, 3, 0, 1, 2, 5}};
const Layout kBLayouts[] = {{4, 4, 0, 0, 1, 1}, {3, 2, 1, 1, 4, 3}, {5, 3, 0, 1, 3, 2}};

template <class T>
ScaMatrix<T> make(int rows, int cols, const Layout& l, const BlacsGrid& g, uint64_t seed) {
  return ScaMatrix<T>(rows + l.i - 1 + 2, cols + l.j - 1 + 2, l.mb, l.nb, l.rsrc % g.nprow,
                      l.csrc % g.npcol, g, seed, 1);
}

// A triangular A that is well conditioned for every DIAG: off-diagonal entries are scaled
// down by the order, the diagonal sits near 2.
template <class T>
void condition(ScaMatrix<T>& a, const Layout& l, int k, const BlacsGrid& g) {
  for (int lj = 0; lj < a.nq; ++lj)
    for (int li = 0; li < a.np; ++li) {
      T& v = a.local[size_t(li + lj * a.desc[8])];
      const int i = a.global_row(li, g) - (l.i - 1), j = a.global_col(lj, g) - (l.j - 1);
      v = i == j ? T(2) + v : v / T(k);
    }
}

// Compares every local element: inside sub(B) within tol of the reference, outside exact.
template <class T>
int compare(const ScaMatrix<T>& got, const ScaMatrix<T>& ref, const Layout& l, int m, int n,
            const BlacsGrid& g, double tol, double& worst) {
  int wrong = 0;
  for (int lj = 0; lj < got.nq; ++lj)
    for (int li = 0; li < got.np; ++li) {
      const size_t at = size_t(li + lj * got.desc[8]);
      const int i = got.global_row(li, g) + 1, j = got.global_col(lj, g) + 1;
      const bool inside = i >= l.i && i < l.i + m && j >= l.j && j < l.j + n;
      const double d = std::fabs(double(got.local[at]) - double(ref.local[at]));
      if (inside) {
        worst = std::max(worst, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
        wrong += !(d <= tol);
      } else {
        wrong += got.local[at] != ref.local[at];
      }
    }
  return wrong;
}

template <class T>
void check_trsm(char side, char uplo, char trans, char diag, int m, int n, double alpha,
                const Layout& la, const Layout& lb, const BlacsGrid& g, const std::string& label) {
  const int k = side == 'L' ? m : n;
  ScaMatrix<T> a = make<T>(k, k, la, g, 31);
  condition(a, la, k, g);
  const std::vector<T> a0 = a.local;
  ScaMatrix<T> ref = make<T>(m, n, lb, g, 32);
  ScaMatrix<T> got = ref;
  const T al = T(alpha);
  ref_trsm(&side, &uplo, &trans, &diag, &m, &n, &al, a.local.data(), &la.i, &la.j,
           a.desc.data(), ref.local.data(), &lb.i, &lb.j, ref.desc.data());
  our_trsm(&side, &uplo, &trans, &diag, &m, &n, &al, a.local.data(), &la.i, &la.j,
           a.desc.data(), got.local.data(), &lb.i, &lb.j, got.desc.data());
  char message[512];
  EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), 0) << label << ": " << message;
  EXPECT_TRUE(a.local == a0) << label << ": A was written";
  // |X| stays below a few times |B| (diagonal near 2, off-diagonal below 1/k), and each of the
  // two summation orders rounds within k eps of it.
  const double tol = 8 * (k + 2) * std::numeric_limits<T>::epsilon() * (1 + std::fabs(alpha));
  double worst = 0;
  EXPECT_EQ(compare(got, ref, lb, m, n, g, tol, worst), 0)
      << label << ": worst difference " << worst << ", tolerance " << tol;
}

// The layered runs (kept to three counts for time): 2 layers of 1 x 2 and of 2 x 2, 3 of 1 x 3.
int layers_for(int p) { return p == 4 || p == 8 ? 2 : p == 9 ? 3 : 0; }

// half: every other combination (alternating DIAG along the others), for the 2.5D runs.
void every_option(const std::vector<std::pair<int, int>>& grids, bool half = false) {
  for (auto [rows, cols] : grids) {
    BlacsGrid g(rows, cols);
    if (!g.member()) continue;
    int index = 0;
    for (char side : {'L', 'R'})
      for (char uplo : {'L', 'U'})
        for (char trans : {'N', 'T', 'C'})
          for (char diag : {'N', 'U'}) {
            const int c = index++;
            if (half && (c + c / 2) % 2 == 1) continue;
            const Layout& la = kALayouts[c % 3];
            const Layout& lb = kBLayouts[(c / 3) % 3];
            const int m = 13 + (c % 5) * 5, n = 9 + (c % 4) * 6;
            const double alpha = c % 7 == 0 ? 0.0 : (c % 2 ? -1.5 : 1.0);
            const std::string label = std::to_string(rows) + "x" + std::to_string(cols) + " " +
                                      side + uplo + trans + diag + " m=" + std::to_string(m) +
                                      " n=" + std::to_string(n) + " case " + std::to_string(c);
            check_trsm<double>(side, uplo, trans, diag, m, n, alpha, la, lb, g, label + " f64");
            if (c % 4 == 1)
              check_trsm<float>(side, uplo, trans, diag, m, n, alpha, la, lb, g, label + " f32");
          }
  }
}

TEST(Pdtrsm, EveryOptionOnEveryGridAgainstScaLapack) { every_option(shapes()); }

// The 2.5D solve on layers of the world (8 ranks: 2 x 2 x 2), half the option combinations (both sides, triangles,
// transpositions and diagonals) against ScaLAPACK on the whole grid.
TEST(Pdtrsm, TwoAndAHalfDAgainstScaLapack) {
  const int p = mpi::size();
  const int layers = layers_for(p);
  if (layers == 0) GTEST_SKIP() << p << " ranks: the layered runs use 4, 8 and 9 only";
  ASSERT_EQ(commpress_triangular_set_layers(layers), 0);
  every_option({shapes().front()}, true);
  // Auto: whatever the model picks on this grid, the results are ScaLAPACK's.
  ASSERT_EQ(commpress_triangular_set_layers(0), 0);
  BlacsGrid g = world_grid();
  check_trsm<double>('L', 'U', 'T', 'N', 40, 24, 1.0, kALayouts[0], kBLayouts[0], g, "auto");
  EXPECT_EQ(commpress_triangular_set_layers(1), 0);
  EXPECT_EQ(commpress_triangular_set_layers(-1), int(ErrorCode::invalid_argument));
}

// Symmetric, diagonally dominant (so positive definite) unless `bad` >= 0: then the diagonal
// at sub(A)'s row `bad` (0-based) is negative and the leading minor of order bad+1 is the
// first that is not positive definite.
template <class T>
void make_spd(ScaMatrix<T>& a, const Layout& l, int n, const BlacsGrid& g, int bad) {
  for (int lj = 0; lj < a.nq; ++lj)
    for (int li = 0; li < a.np; ++li) {
      const int i = a.global_row(li, g) - (l.i - 1), j = a.global_col(lj, g) - (l.j - 1);
      const double v = linalg::detail::matrix_value(41, std::min(i, j), std::max(i, j));
      a.local[size_t(li + lj * a.desc[8])] = T(i == j ? (i == bad ? -1.0 : n + 1.0 + v) : v);
    }
}

// ||sub(A) - L L^T|| / (||sub(A)|| n eps) with L from `factor` (U^T U for 'U'), through
// ScaLAPACK's pdgemm_ and pdlange_ on a dense copy of the factor's triangle.
double residual(const ScaMatrix<double>& factor, const ScaMatrix<double>& a, const Layout& l,
                int n, char uplo, const BlacsGrid& g) {
  ScaMatrix<double> t = factor, c = a;
  for (int lj = 0; lj < t.nq; ++lj)
    for (int li = 0; li < t.np; ++li) {
      const int i = t.global_row(li, g) - (l.i - 1), j = t.global_col(lj, g) - (l.j - 1);
      const bool keep = uplo == 'L' ? i >= j : i <= j;
      if (!keep) t.local[size_t(li + lj * t.desc[8])] = 0;
    }
  const char ta = uplo == 'L' ? 'N' : 'T', tb = uplo == 'L' ? 'T' : 'N';
  const double one = 1, minus = -1;
  ::pdgemm_(&ta, &tb, &n, &n, &n, &one, t.local.data(), &l.i, &l.j, t.desc.data(),
            t.local.data(), &l.i, &l.j, t.desc.data(), &minus, c.local.data(), &l.i, &l.j,
            c.desc.data());
  std::vector<double> work(size_t(std::max(c.np, c.nq)) + 1);
  const double diff = pdlange_("F", &n, &n, c.local.data(), &l.i, &l.j, c.desc.data(), work.data());
  const double norm = pdlange_("F", &n, &n, a.local.data(), &l.i, &l.j, a.desc.data(), work.data());
  return diff / (norm * n * std::numeric_limits<double>::epsilon());
}

template <class T>
void check_potrf(char uplo_letter, int n, const Layout& l, int bad, const BlacsGrid& g,
                 const std::string& label, bool against_scalapack = true) {
  ScaMatrix<T> a = make<T>(n, n, l, g, 40);
  make_spd(a, l, n, g, bad);
  ScaMatrix<T> ref = a, got = a;
  int ref_info = -99, got_info = -99;
  const char& uplo = uplo_letter;
  our_potrf(&uplo, &n, got.local.data(), &l.i, &l.j, got.desc.data(), &got_info);
  EXPECT_EQ(got_info, bad + 1) << label;
  if (against_scalapack) {
    ref_potrf(&uplo, &n, ref.local.data(), &l.i, &l.j, ref.desc.data(), &ref_info);
    EXPECT_EQ(got_info, ref_info) << label;
  }
  if (bad >= 0) return;  // what a stopped factorization leaves behind is not specified
  const bool lower = uplo == 'L' || uplo == 'l';
  // The other triangle and everything outside sub(A) are untouched; the factor agrees.
  int wrong = 0;
  double worst = 0;
  const double tol = 4 * n * std::numeric_limits<T>::epsilon() * std::sqrt(double(n) + 2);
  for (int lj = 0; lj < got.nq; ++lj)
    for (int li = 0; li < got.np; ++li) {
      const size_t at = size_t(li + lj * got.desc[8]);
      const int i = got.global_row(li, g) - (l.i - 1), j = got.global_col(lj, g) - (l.j - 1);
      const bool inside = i >= 0 && i < n && j >= 0 && j < n && (lower ? i >= j : i <= j);
      if (inside && !against_scalapack) {
        wrong += std::isnan(got.local[at]);
      } else if (inside) {
        const double d = std::fabs(double(got.local[at]) - double(ref.local[at]));
        worst = std::max(worst, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
        wrong += !(d <= tol);
      } else {
        wrong += got.local[at] != a.local[at];
      }
    }
  EXPECT_EQ(wrong, 0) << label << ": worst difference " << worst << ", tolerance " << tol;
  if constexpr (std::is_same_v<T, double>) {
    const double r = residual(got, a, l, n, lower ? 'L' : 'U', g);
    EXPECT_LT(r, 1.0) << label << ": residual ||A - L L^T|| / (||A|| n eps) = " << r;
  }
}

void every_potrf(const std::vector<std::pair<int, int>>& grids) {
  for (auto [rows, cols] : grids) {
    BlacsGrid g(rows, cols);
    if (!g.member()) continue;
    int index = 0;
    for (char uplo : {'L', 'U', 'l', 'u'})
      for (int n : {1, 17, 31}) {
        const int c = index++;
        const Layout& l = kPotrfLayouts[c % 3];
        const std::string label = std::to_string(rows) + "x" + std::to_string(cols) + " " +
                                  uplo + " n=" + std::to_string(n) + " case " + std::to_string(c);
        check_potrf<double>(uplo, n, l, -1, g, label + " f64");
        if (c % 3 == 1) check_potrf<float>(uplo, n, l, -1, g, label + " f32");
        // Not positive definite at a column inside a block, and at a block's first column.
        if (n > 1) check_potrf<double>(uplo, n, l, c % 2 ? n - 2 : 4, g, label + " not SPD");
        if (c % 3 == 0) {
          const Layout& o = kOnlyCommpress[(c / 3) % 2];
          check_potrf<double>(uplo, n, o, -1, g, label + " copied", false);
          if (n > 1) check_potrf<double>(uplo, n, o, n / 2, g, label + " copied, not SPD", false);
        }
      }
  }
}

TEST(Pdpotrf, FactorsAndReportsInfoLikeScaLapack) { every_potrf(shapes()); }

// The 2.5D factorization on layers of the world (8 ranks: 2 x 2 x 2): the same checks.
TEST(Pdpotrf, TwoAndAHalfDAgainstScaLapack) {
  const int p = mpi::size();
  const int layers = layers_for(p);
  if (layers == 0) GTEST_SKIP() << p << " ranks: the layered runs use 4, 8 and 9 only";
  ASSERT_EQ(commpress_triangular_set_layers(layers), 0);
  every_potrf({shapes().front()});
  // Auto: whatever the model picks, the factor is ScaLAPACK's.
  ASSERT_EQ(commpress_triangular_set_layers(0), 0);
  check_potrf<double>('L', 37, kPotrfLayouts[0], -1, world_grid(), "auto");
  EXPECT_EQ(commpress_triangular_set_layers(1), 0);
}

// The traffic counter: one total on every rank, nothing on one rank; on 8 ranks each rank gets
// only the panel rows it reads (2D on 2 x 4: about (2 + 4 - 2) S for S the triangle's bytes;
// whole panels would be 7 S) and the 2.5D factorization on 2 layers of 2 x 2 moves at least
// 10% fewer bytes than that (docs/triangular.md derives 12.5% for large N), same factor.
TEST(TriangularBytes, CountedAlikeAndLayersMoveLess) {
  BlacsGrid g = world_grid();
  const int n = 512;
  const Layout l{16, 16, 0, 0, 1, 1};
  auto factor = [&](int layers, long long& bytes) {
    EXPECT_EQ(commpress_triangular_set_layers(layers), 0);
    ScaMatrix<double> a = make<double>(n, n, l, g, 40);
    make_spd(a, l, n, g, -1);
    int info = -1;
    commpress_pdpotrf("L", &n, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
    EXPECT_EQ(info, 0);
    bytes = commpress_triangular_last_bytes();
    long long lo = bytes, hi = bytes;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo, hi) << layers << " layer(s): the ranks report different totals";
    return a;
  };
  long long flat = 0, layered = 0;
  const ScaMatrix<double> two_d = factor(1, flat);
  if (mpi::size() == 1) EXPECT_EQ(flat, 0);
  else EXPECT_GE(flat, int64_t(n) * n / 2 * int64_t(sizeof(double)));  // every panel travels
  if (mpi::size() == 8) {
    const ScaMatrix<double> layers = factor(2, layered);
    const double s = double(n) * n / 2 * sizeof(double);
    EXPECT_LE(double(flat), 4.5 * s) << flat << " bytes on 2 x 4";
    EXPECT_LE(double(layered), 0.9 * double(flat)) << layered << " bytes on 2 x 2 x 2 against "
                                                    << flat << " on 2 x 4";
    double worst = 0;
    for (size_t i = 0; i < two_d.local.size(); ++i)
      worst = std::max(worst, std::fabs(two_d.local[i] - layers.local[i]));
    EXPECT_LT(worst, 1e-12 * n);
  }
  EXPECT_EQ(commpress_triangular_set_layers(1), 0);
}

// A compressed Cholesky's panels stay compressed on both hops: the broadcast along the process
// row and the gather in the process column (which passes the owning column's frames on). On
// a diagonal matrix the panels below the diagonal blocks are zeros, which zstd shrinks to
// almost nothing, so the bytes are mostly the diagonal blocks' raw broadcasts; a gather of raw
// blocks (a third of the panels' bytes on 2 x 2) would leave far more.
TEST(TriangularBytes, CompressedPanelsStayCompressedInTheGather) {
  BlacsGrid g = world_grid();
  if (g.nprow < 2 || g.npcol < 2) GTEST_SKIP() << "a grid of 2 x 2 or more";
  const int n = 512;
  const Layout l{16, 16, 0, 0, 1, 1};
  auto factor = [&](const char* codec) {
    EXPECT_EQ(commpress_triangular_set_options(codec, 0), 0) << codec;
    ScaMatrix<double> a = make<double>(n, n, l, g, 40);
    for (int lj = 0; lj < a.nq; ++lj)
      for (int li = 0; li < a.np; ++li)
        a.local[size_t(li + lj * a.desc[8])] = a.global_row(li, g) == a.global_col(lj, g) ? 4.0 : 0.0;
    int info = -1;
    commpress_pdpotrf("L", &n, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
    EXPECT_EQ(info, 0) << codec;
    for (int lj = 0; lj < a.nq; ++lj)
      for (int li = 0; li < a.np; ++li) {
        const int i = a.global_row(li, g), j = a.global_col(lj, g);  // (the matrix is 2 larger)
        const double v = a.local[size_t(li + lj * a.desc[8])];
        EXPECT_EQ(v, i != j ? 0.0 : i < n ? 2.0 : 4.0) << codec;
      }
    return commpress_triangular_last_bytes();
  };
  const long long raw = factor("none"), packed = factor("zstd-1");
  EXPECT_LT(double(packed), 0.15 * double(raw)) << packed << " bytes compressed, " << raw << " raw";
  // A general SPD matrix, 2D and (where the world makes layers) 2.5D, whose layers gather
  // within their own grids: lossless frames passed on give the raw run's factor bit for bit.
  for (int layers : {1, layers_for(mpi::size())}) {
    if (layers == 0) continue;
    ASSERT_EQ(commpress_triangular_set_layers(layers), 0);
    std::vector<double> got[2];
    for (int coded = 0; coded < 2; ++coded) {
      EXPECT_EQ(commpress_triangular_set_options(coded ? "zstd-1" : "none", 0), 0);
      ScaMatrix<double> a = make<double>(n, n, l, g, 41);
      make_spd(a, l, n, g, -1);
      int info = -1;
      commpress_pdpotrf("L", &n, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
      EXPECT_EQ(info, 0) << layers << " layer(s)";
      got[coded] = a.local;
    }
    EXPECT_TRUE(got[0] == got[1]) << layers << " layer(s): lossless panels changed the factor";
  }
  EXPECT_EQ(commpress_triangular_set_layers(1), 0);
  EXPECT_EQ(commpress_triangular_set_options(nullptr, 0), 0);
}

// COMMPRESS_TRIANGULAR_TRACE: each rank writes its events, a panel posted and arrived per
// block column and the call's end, and the factor is the untraced run's, bit for bit.
TEST(Pdpotrf, TraceRecordsEveryPanel) {
  BlacsGrid g = world_grid();
  const int n = 40;
  const Layout l{4, 4, 0, 0, 1, 1};  // 10 block columns
  int stamp = std::rand();
  MPI_Bcast(&stamp, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::string prefix =
      (std::filesystem::temp_directory_path() / ("commpress-trace-" + std::to_string(stamp))).string();
  ScaMatrix<double> plain = make<double>(n, n, l, g, 40);
  make_spd(plain, l, n, g, -1);
  ScaMatrix<double> traced = plain;
  int info = -1;
  commpress_pdpotrf("L", &n, plain.local.data(), &l.i, &l.j, plain.desc.data(), &info);
  EXPECT_EQ(info, 0);
  setenv("COMMPRESS_TRIANGULAR_TRACE", prefix.c_str(), 1);
  commpress_pdpotrf("L", &n, traced.local.data(), &l.i, &l.j, traced.desc.data(), &info);
  unsetenv("COMMPRESS_TRIANGULAR_TRACE");
  EXPECT_EQ(info, 0);
  EXPECT_EQ(traced.local, plain.local);
  if (!g.member()) return;
  const std::string file = prefix + "." + std::to_string(mpi::rank());
  std::ifstream in(file);
  ASSERT_TRUE(in.good()) << file;
  int posted = 0, arrived = 0;
  std::string line, last;
  while (std::getline(in, line)) {
    posted += line.find(" posted ") != std::string::npos;
    arrived += line.find(" arrived ") != std::string::npos;
    last = line;
  }
  EXPECT_EQ(posted, 10);
  EXPECT_EQ(arrived, 10);
  EXPECT_NE(last.find(" end wall "), std::string::npos) << last;
  std::remove(file.c_str());
}

// 2.5D Cholesky's layers are whole process columns of the lower factor's grid (rows of the
// upper one's): on 8 ranks (2 x 4) 4 layers of 2 x 1 factor the lower triangle as the 2D run
// does, and the upper one (2 process rows) fails on every rank with A untouched.
TEST(Pdpotrf, LayersDivideTheFactorsProcessColumns) {
  if (mpi::size() != 8) GTEST_SKIP() << "8 ranks (2 x 4) only";
  BlacsGrid g = world_grid();
  const int n = 70;
  const Layout l{8, 8, 0, 0, 1, 1};
  ScaMatrix<double> a = make<double>(n, n, l, g, 40);
  make_spd(a, l, n, g, -1);
  ScaMatrix<double> flat = a, layered = a, upper = a;
  int info = -9;
  ASSERT_EQ(commpress_triangular_set_layers(1), 0);
  commpress_pdpotrf("L", &n, flat.local.data(), &l.i, &l.j, flat.desc.data(), &info);
  EXPECT_EQ(info, 0);
  ASSERT_EQ(commpress_triangular_set_layers(4), 0);
  commpress_pdpotrf("L", &n, layered.local.data(), &l.i, &l.j, layered.desc.data(), &info);
  EXPECT_EQ(info, 0);
  double worst = 0;
  for (size_t i = 0; i < flat.local.size(); ++i)
    worst = std::max(worst, std::fabs(flat.local[i] - layered.local[i]));
  EXPECT_LT(worst, 1e-12 * n);
  commpress_pdpotrf("U", &n, upper.local.data(), &l.i, &l.j, upper.desc.data(), &info);
  EXPECT_LT(info, 0);
  char message[256] = {};
  commpress_gemm_last_error(message, sizeof message);
  EXPECT_NE(std::string(message).find("layers"), std::string::npos) << message;
  EXPECT_TRUE(upper.local == a.local) << "A was written";
  EXPECT_EQ(commpress_triangular_set_layers(1), 0);
}

// max |sub(A) - F F^T| (F = L, lower) or |sub(A) - F^T F| (upper) through pdgemm_/pdlange_.
double residual_max(const ScaMatrix<double>& factor, const ScaMatrix<double>& a, const Layout& l,
                    int n, char uplo, const BlacsGrid& g) {
  ScaMatrix<double> t = factor, c = a;
  for (int lj = 0; lj < t.nq; ++lj)
    for (int li = 0; li < t.np; ++li) {
      const int i = t.global_row(li, g) - (l.i - 1), j = t.global_col(lj, g) - (l.j - 1);
      if (!(uplo == 'L' ? i >= j : i <= j)) t.local[size_t(li + lj * t.desc[8])] = 0;
    }
  const char ta = uplo == 'L' ? 'N' : 'T', tb = uplo == 'L' ? 'T' : 'N';
  const double one = 1, minus = -1;
  ::pdgemm_(&ta, &tb, &n, &n, &n, &one, t.local.data(), &l.i, &l.j, t.desc.data(),
            t.local.data(), &l.i, &l.j, t.desc.data(), &minus, c.local.data(), &l.i, &l.j,
            c.desc.data());
  std::vector<double> work(size_t(std::max(c.np, c.nq)) + 1);
  return pdlange_("M", &n, &n, c.local.data(), &l.i, &l.j, c.desc.data(), work.data());
}

// Panels through a lossless codec: bit for bit what the raw run gives. Through a lossy one:
// the residual the compression adds stays within the bound the call reports.
TEST(TriangularCompressed, LosslessIsExactLossyKeepsItsReportedBound) {
  BlacsGrid g = world_grid();
  const Layout l = kALayouts[0];
  const int n = 29, nrhs = 11;
  ScaMatrix<double> a0 = make<double>(n, n, l, g, 60);
  make_spd(a0, l, n, g, -1);
  ScaMatrix<double> b0 = make<double>(n, nrhs, kBLayouts[0], g, 61);
  auto run = [&](const char* codec, double bound, ScaMatrix<double>& a, ScaMatrix<double>& b,
                 double& potrf_bound, double& trsm_bound) {
    EXPECT_EQ(commpress_triangular_set_options(codec, bound), 0) << codec;
    a = a0;
    b = b0;
    int info = -1;
    const double one = 1;
    commpress_pdpotrf("L", &n, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
    EXPECT_EQ(info, 0) << codec;
    potrf_bound = commpress_triangular_last_bound();
    commpress_pdtrsm("L", "L", "N", "N", &n, &nrhs, &one, a.local.data(), &l.i, &l.j,
                     a.desc.data(), b.local.data(), &l.i, &l.j, b.desc.data());
    trsm_bound = commpress_triangular_last_bound();
  };
  ScaMatrix<double> a_raw = a0, b_raw = b0, a_z = a0, b_z = b0, a_q = a0, b_q = b0;
  double pb = -2, tb = -2;
  run("none", 0, a_raw, b_raw, pb, tb);
  EXPECT_EQ(pb, 0);
  EXPECT_EQ(tb, 0);
  run("zstd-1", 0, a_z, b_z, pb, tb);
  EXPECT_TRUE(a_z.local == a_raw.local) << "lossless panels changed the factor";
  EXPECT_TRUE(b_z.local == b_raw.local) << "lossless blocks changed the solution";
  EXPECT_EQ(pb, 0);
  const double e = 1e-5;
  run("szp", e, a_q, b_q, pb, tb);
  EXPECT_GT(pb, 0);
  EXPECT_GT(tb, 0);
  // The uncompressed run's own residual is the rounding; compression may add up to the bound.
  const double rounding = residual_max(a_raw, a0, l, n, 'L', g);
  const double got = residual_max(a_q, a0, l, n, 'L', g);
  EXPECT_LE(got, pb + 2 * rounding + 1e-12) << "Cholesky residual beyond the reported bound";
  if (mpi::size() > 1 && g.nprow * g.npcol > 1) EXPECT_GT(got, 0);
  // The solve: L X = B with L the compressed run's factor, residual |L X - B| within its bound.
  ScaMatrix<double> lx = b_q;
  {
    ScaMatrix<double> t = a_q;
    for (int lj = 0; lj < t.nq; ++lj)
      for (int li = 0; li < t.np; ++li)
        if (t.global_row(li, g) < t.global_col(lj, g)) t.local[size_t(li + lj * t.desc[8])] = 0;
    const double one = 1, minus = -1;
    lx = b0;
    ::pdgemm_("N", "N", &n, &nrhs, &n, &one, t.local.data(), &l.i, &l.j, t.desc.data(),
              b_q.local.data(), &l.i, &l.j, b_q.desc.data(), &minus, lx.local.data(), &l.i,
              &l.j, lx.desc.data());
  }
  std::vector<double> work(64 + size_t(std::max(lx.np, lx.nq)));
  const double solve_residual =
      pdlange_("M", &n, &nrhs, lx.local.data(), &l.i, &l.j, lx.desc.data(), work.data());
  EXPECT_LE(solve_residual, tb + 1e-10) << "solve residual beyond the reported bound";
  // Refused: a lossy codec without a bound, and Auto's codec choice; the options stay.
  EXPECT_EQ(commpress_triangular_set_options("szp", 0), int(ErrorCode::invalid_argument));
  EXPECT_EQ(commpress_triangular_set_options("auto", 0), int(ErrorCode::unsupported));
  EXPECT_EQ(commpress_triangular_set_options(nullptr, 0), 0);
}

// Arguments one process gets wrong, or that differ across processes: every process returns the
// same negative INFO (or error) and message, A and B are untouched, and the call returns.
TEST(TriangularErrors, FailTogether) {
  BlacsGrid g = world_grid();
  const int me = mpi::rank(), p = mpi::size();
  const Layout l = kALayouts[0];
  const int n = 9;
  ScaMatrix<double> a = make<double>(n, n, l, g, 50);
  make_spd(a, l, n, g, -1);
  const std::vector<double> a0 = a.local;
  char message[512];
  int info = 0;
  // UPLO invalid on the last process only.
  const char uplo = me == p - 1 ? 'X' : 'L';
  commpress_pdpotrf(&uplo, &n, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
  EXPECT_EQ(info, -1);
  EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), int(ErrorCode::invalid_argument));
  EXPECT_NE(std::string(message).find("UPLO"), std::string::npos) << message;
  // N differing across processes (p > 1), descriptor MB differing.
  const int n2 = me == 0 ? n : n - 1;
  commpress_pdpotrf("L", &n2, a.local.data(), &l.i, &l.j, a.desc.data(), &info);
  if (p > 1) {
    EXPECT_EQ(info, -2) << "N differs";
    EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), int(ErrorCode::mismatch));
  } else {
    EXPECT_EQ(info, 0);
  }
  a.local = a0;
  Descriptor d = a.desc;
  if (me == p - 1 && p > 1) d[4] += 1;
  commpress_pdpotrf("U", &n, a.local.data(), &l.i, &l.j, d.data(), &info);
  if (p > 1) {
    EXPECT_EQ(info, -6) << "DESCA[MB] differs";
    EXPECT_TRUE(a.local == a0);
  }
  a.local = a0;
  // pdtrsm: M differing across processes, then DIAG invalid everywhere.
  ScaMatrix<double> b = make<double>(n, 5, kBLayouts[0], g, 51);
  const std::vector<double> b0 = b.local;
  const int m = me == 0 ? n : n - 1, five = 5;
  const double one = 1;
  commpress_pdtrsm("L", "L", "N", "N", &m, &five, &one, a.local.data(), &l.i, &l.j,
                   a.desc.data(), b.local.data(), &l.i, &l.j, b.desc.data());
  if (p > 1) {
    EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), int(ErrorCode::mismatch));
    EXPECT_NE(std::string(message).find("M"), std::string::npos) << message;
    EXPECT_TRUE(b.local == b0);
  }
  b.local = b0;
  commpress_pdtrsm("L", "L", "N", "Z", &n, &five, &one, a.local.data(), &l.i, &l.j,
                   a.desc.data(), b.local.data(), &l.i, &l.j, b.desc.data());
  EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), int(ErrorCode::invalid_argument));
  EXPECT_NE(std::string(message).find("DIAG"), std::string::npos) << message;
  EXPECT_TRUE(b.local == b0);
}

}  // namespace
}  // namespace commpress::testing
