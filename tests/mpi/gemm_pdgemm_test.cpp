// commpress_pdgemm / commpress_psgemm against ScaLAPACK's own pdgemm_ / psgemm_ on copies of
// the same block-cyclic data (submatrix offsets, both transposes, several block sizes and
// source processes), the in-place path for block-layout descriptors, the errors ScaLAPACK
// would raise (the same message on every process, C untouched), and Grid::from_blacs.
#include <cblas.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "blacs_test_support.hpp"
#include "comm/session/agreement.hpp"
#include "commpress/linalg.hpp"
#include "commpress/scalapack.h"
#include "linalg/gemm/local_blas.hpp"
#include "linalg/gemm/scalapack_options.hpp"
#include "linalg/layout/blacs.hpp"
#include "linalg/layout/matrix_fill.hpp"
#include "linalg/layout/redistribute.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::detail::Descriptor;

void pgemm_reference(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                     const double* alpha, const double* a, const int* ia, const int* ja,
                     const int* da, const double* b, const int* ib, const int* jb,
                     const int* db, const double* beta, double* c, const int* ic,
                     const int* jc, const int* dc) {
  ::pdgemm_(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic,
                          jc, dc);
}
void pgemm_reference(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                     const float* alpha, const float* a, const int* ia, const int* ja,
                     const int* da, const float* b, const int* ib, const int* jb,
                     const int* db, const float* beta, float* c, const int* ic, const int* jc,
                     const int* dc) {
  ::psgemm_(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic,
                          jc, dc);
}
void pgemm_commpress(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                     const double* alpha, const double* a, const int* ia, const int* ja,
                     const int* da, const double* b, const int* ib, const int* jb,
                     const int* db, const double* beta, double* c, const int* ic,
                     const int* jc, const int* dc) {
  commpress_pdgemm(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic, jc, dc);
}
void pgemm_commpress(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                     const float* alpha, const float* a, const int* ia, const int* ja,
                     const int* da, const float* b, const int* ib, const int* jb,
                     const int* db, const float* beta, float* c, const int* ic, const int* jc,
                     const int* dc) {
  commpress_psgemm(ta, tb, m, n, k, alpha, a, ia, ja, da, b, ib, jb, db, beta, c, ic, jc, dc);
}

// One multiply: sub(A), sub(B), sub(C) at the given offsets of matrices `extra` rows and
// columns larger than needed, blocks mb x nb (A), nb x mb (B), mb x mb (C), sources shifted.
struct Case {
  char ta, tb;
  int m, n, k;
  int mb, nb;
  int ia, ja, ib, jb, ic, jc;
  int rsrc, csrc;
  double alpha, beta;
  int extra = 2;
  bool block_layout = false;  // descriptors in DistMatrix's layout, whole matrices
};

// Runs ScaLAPACK and commpress on copies of the same data and compares every local element:
// inside sub(C) within the rounding two summation orders may differ by, outside exactly.
// input_error bounds the perturbation of every element of A and B (lossy codecs).
// An algorithm answering unsupported fails the case, unless the caller says why it cannot run
// it (why_unsupported): then the case is skipped after a note. Returns false when the call did
// not run.
template <class T>
bool check_case(const Case& c, const BlacsGrid& g, const std::string& label,
                double input_error = 0, const char* why_unsupported = nullptr) {
  const bool an = c.ta == 'N' || c.ta == 'n', bn = c.tb == 'N' || c.tb == 'n';
  int ar = an ? c.m : c.k, ac = an ? c.k : c.m, br = bn ? c.k : c.n, bc = bn ? c.n : c.k;
  ar += c.ia - 1 + c.extra;
  ac += c.ja - 1 + c.extra;
  br += c.ib - 1 + c.extra;
  bc += c.jb - 1 + c.extra;
  int cr = c.m + c.ic - 1 + c.extra, cc = c.n + c.jc - 1 + c.extra;
  const int rs = c.rsrc % g.nprow, cs = c.csrc % g.npcol;
  ScaMatrix<T> a = c.block_layout
                       ? ScaMatrix<T>(ar, ac, blocks_of(ar, g.nprow), blocks_of(ac, g.npcol), 0,
                                      0, g, 21, 1)
                       : ScaMatrix<T>(ar, ac, c.mb, c.nb, rs, cs, g, 21, 1);
  ScaMatrix<T> b = c.block_layout
                       ? ScaMatrix<T>(br, bc, blocks_of(br, g.nprow), blocks_of(bc, g.npcol), 0,
                                      0, g, 22)
                       : ScaMatrix<T>(br, bc, c.nb, c.mb, 0, cs, g, 22);
  ScaMatrix<T> ref = c.block_layout
                         ? ScaMatrix<T>(cr, cc, blocks_of(cr, g.nprow), blocks_of(cc, g.npcol),
                                        0, 0, g, 23, 2)
                         : ScaMatrix<T>(cr, cc, c.mb, c.mb, rs, 0, g, 23, 2);
  ScaMatrix<T> got = ref;
  const std::vector<T> original = ref.local;
  const T alpha = T(c.alpha), beta = T(c.beta);
  pgemm_reference(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a.local.data(), &c.ia, &c.ja,
                  a.desc.data(), b.local.data(), &c.ib, &c.jb, b.desc.data(), &beta,
                  ref.local.data(), &c.ic, &c.jc, ref.desc.data());
  // beta == 0: sub(C)'s input is never read, so NaN there must not reach the result.
  if (c.beta == 0)
    for (int lj = 0; lj < got.nq; ++lj)
      for (int li = 0; li < got.np; ++li) {
        const int i = got.global_row(li, g) + 1, j = got.global_col(lj, g) + 1;
        if (i >= c.ic && i < c.ic + c.m && j >= c.jc && j < c.jc + c.n)
          got.local[size_t(li + lj * got.desc[8])] = std::numeric_limits<T>::quiet_NaN();
      }
  pgemm_commpress(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, a.local.data(), &c.ia, &c.ja,
                  a.desc.data(), b.local.data(), &c.ib, &c.jb, b.desc.data(), &beta,
                  got.local.data(), &c.ic, &c.jc, got.desc.data());
  char message[512];
  const int code = commpress_gemm_last_error(message, sizeof message);
  if (code == int(ErrorCode::unsupported)) {
    if (why_unsupported == nullptr) {
      ADD_FAILURE() << label << " answered unsupported: " << message;
    } else if (mpi::rank() == 0) {
      std::printf("  note: %s skipped (%s): %s\n", label.c_str(), why_unsupported, message);
    }
    return false;
  }
  EXPECT_EQ(code, 0) << label << ": " << message;
  // Elements lie in [-1, 1): each result's rounding is below (k+2) eps (|alpha| k + |beta|).
  const double eps = std::numeric_limits<T>::epsilon();
  // A lossy input error e moves each product term by at most 2e + e^2 (|elements| < 1).
  const double tol = 2 * (c.k + 2) * eps * (std::fabs(c.alpha) * c.k + std::fabs(c.beta)) +
                     4 * eps +
                     std::fabs(c.alpha) * c.k * (2 * input_error + input_error * input_error);
  int wrong = 0;
  double worst = 0;
  for (int lj = 0; lj < got.nq; ++lj)
    for (int li = 0; li < got.np; ++li) {
      const size_t at = size_t(li + lj * got.desc[8]);
      const int i = got.global_row(li, g) + 1, j = got.global_col(lj, g) + 1;
      const bool inside = i >= c.ic && i < c.ic + c.m && j >= c.jc && j < c.jc + c.n;
      if (inside) {
        const double d = std::fabs(double(got.local[at]) - double(ref.local[at]));
        worst = std::max(worst, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
        wrong += !(d <= tol);
      } else {
        wrong += got.local[at] != original[at];
      }
    }
  EXPECT_EQ(wrong, 0) << label << ": worst difference " << worst << ", tolerance " << tol;
  return true;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all{
      {'N', 'N', 37, 29, 23, 2, 3, 3, 2, 2, 4, 5, 3, 1, 1, 1.5, -0.5},
      {'T', 'N', 20, 31, 17, 3, 2, 2, 5, 4, 1, 1, 2, 1, 0, -1.0, 2.0},
      {'N', 'T', 50, 40, 60, 16, 16, 1, 3, 3, 1, 2, 2, 0, 1, 0.75, 1.0},
      {'T', 'T', 33, 18, 45, 3, 16, 4, 2, 2, 3, 3, 4, 1, 2, 2.0, 0.0},
      {'n', 't', 1, 5, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1.0, 1.0},
      {'N', 'N', 10, 7, 0, 3, 3, 2, 2, 1, 1, 2, 3, 0, 0, 1.0, 3.0},
      {'C', 'N', 3, 2, 40, 16, 2, 5, 1, 1, 5, 1, 1, 1, 1, -2.0, 0.5},
      {'T', 'T', 9, 8, 6, 2, 3, 2, 2, 3, 1, 1, 4, 1, 1, 0.0, 1.5},  // alpha = 0: C *= beta
  };
  return all;
}

// The grids of the brief that fit the world, plus 2 x 1 (more process rows than columns).
std::vector<std::pair<int, int>> shapes() {
  std::vector<std::pair<int, int>> out;
  for (auto s : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 2}, {2, 3}, {2, 1}})
    if (s.first * s.second <= mpi::size()) out.push_back(s);
  return out;
}

// Every case on every grid with the given algorithm (Cannon's only on square grids); every
// one must run.
// thorough: f32 and the in-place variant of every case, else of alternate cases (the
// layouts and offsets are the entry point's business, the algorithms see the same views).
void run_all(const char* algorithm, bool thorough) {
  EXPECT_EQ(commpress_gemm_set_options(algorithm, "none", 0), 0) << algorithm;
  const std::string name = algorithm;
  for (auto [rows, cols] : shapes()) {
    if ((name == "cannon" || name == "cannon25d") && rows != cols) continue;
    {
      BlacsGrid g(rows, cols);
      int index = 0;
      for (const Case& c : cases()) {
        if (!g.member()) break;
        const int number = index++;
        const std::string label = name + " " + std::to_string(rows) + "x" +
                                  std::to_string(cols) + " case " + std::to_string(number);
        Case whole = c;
        whole.ia = whole.ja = whole.ib = whole.jb = whole.ic = whole.jc = 1;
        whole.extra = 0;
        whole.block_layout = true;
        const bool odd = number % 2 == 1;
        check_case<double>(c, g, label + " f64");
        if (thorough || odd) check_case<float>(c, g, label + " f32");
        if (thorough || !odd) check_case<double>(whole, g, label + " block layout f64");
      }
    }
    // Processes outside this grid must not run ahead into the next grid's creation, which
    // involves every process.
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// What every process saw from a call that must fail: the same code and message everywhere,
// containing `expect`, and C untouched.
void expect_failure(const std::vector<double>& c_before, const std::vector<double>& c_after,
                    ErrorCode code, const std::string& expect) {
  char message[512];
  const int got = commpress_gemm_last_error(message, sizeof message);
  EXPECT_EQ(got, int(code)) << message;
  EXPECT_NE(std::string(message).find(expect), std::string::npos) << message;
  EXPECT_EQ(std::string(message).rfind("commpress_pdgemm: ", 0), 0u) << message;
  EXPECT_TRUE(c_before == c_after) << "C changed although the call failed: " << message;
  int64_t fp[2] = {comm::detail::fingerprint(message), -comm::detail::fingerprint(message)};
  MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(fp[0], -fp[1]) << "processes hold different messages; this one: " << message;
}

// A valid call on 20 x 20 matrices in 2 x 2 blocks, to be spoiled one argument at a time.
struct ValidCall {
  const BlacsGrid& g;
  ScaMatrix<double> a, b, c;
  char ta = 'N', tb = 'N';
  int m = 12, n = 10, k = 9, ia = 2, ja = 3, ib = 4, jb = 2, ic = 3, jc = 5;
  double alpha = 1.0, beta = 0.5;
  bool null_k = false;
  explicit ValidCall(const BlacsGrid& grid)
      : g(grid),
        a(20, 20, 2, 2, 0, 0, grid, 1),
        b(20, 20, 2, 2, 0, 0, grid, 2),
        c(20, 20, 2, 2, 0, 0, grid, 3) {}
  std::vector<double> run() {
    std::vector<double> out = c.local;
    commpress_pdgemm(&ta, &tb, &m, &n, null_k ? nullptr : &k, &alpha, a.local.data(), &ia, &ja, a.desc.data(),
                     b.local.data(), &ib, &jb, b.desc.data(), &beta, out.data(), &ic, &jc,
                     c.desc.data());
    return out;
  }
};

TEST(Pdgemm, InvalidArgumentsFailAlikeEverywhereAndLeaveCUntouched) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  ASSERT_EQ(commpress_gemm_set_options("scalapack", "none", 0), 0);
  {
    ValidCall call(g);
    const std::vector<double> out = call.run();
    char message[256];
    EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), 0) << message;
    EXPECT_FALSE(out == call.c.local);  // the valid call does write C
  }
  {  // LLD too small on the last process only: the others learn its message.
    ValidCall call(g);
    if (g.myrow == g.nprow - 1 && g.mycol == g.npcol - 1) call.a.desc[8] = call.a.np - 1;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "DESCA[LLD]");
  }
  {  // sub(A) reaches beyond A's rows.
    ValidCall call(g);
    call.ia = 10;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "exceed DESCA[M]");
  }
  {  // sub(C) reaches beyond C's columns, through the transpose of B.
    ValidCall call(g);
    call.tb = 'T';
    call.jc = 12;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "exceed DESCC[N]");
  }
  {  // B on another context (same processes, same shape).
    BlacsGrid other(g.nprow, g.npcol);
    ValidCall call(g);
    call.b.desc[1] = other.context;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "DESCB[CTXT]");
  }
  {
    ValidCall call(g);
    call.ta = 'X';
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "parameter 1 (TRANSA)");
  }
  {
    ValidCall call(g);
    call.c.desc[4] = 0;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "DESCC[MB]");
  }
  {
    ValidCall call(g);
    call.b.desc[6] = g.nprow;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument, "DESCB[RSRC]");
  }
  {  // a null pointer on the last process: its own error, not the disagreement it causes
    ValidCall call(g);
    call.null_k = mpi::rank() == mpi::size() - 1;
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument,
                   "parameter 5 (K): null pointer");
  }
  if (mpi::size() > 1) {  // one process passes another alpha
    ValidCall call(g);
    if (mpi::rank() == mpi::size() - 1) call.alpha = 2.0;
    expect_failure(call.c.local, call.run(), ErrorCode::mismatch, "disagree on ALPHA");
  }
  EXPECT_NE(commpress_gemm_set_options("no-such-algorithm", "none", 0), 0);
  EXPECT_NE(commpress_gemm_set_options("auto", "no-such-codec", 0), 0);
  EXPECT_NE(commpress_gemm_set_options("auto", "none", -1.0), 0);
  EXPECT_NE(commpress_gemm_set_options("summa", "szp", 0), 0);  // lossy without a bound
  EXPECT_EQ(commpress_gemm_set_options(nullptr, nullptr, 0), 0);
}

// The COMMPRESS_GEMM_* variables choose the options when none were set; a bad value fails
// every call alike, naming the variable.
TEST(Pdgemm, OptionsComeFromTheEnvironment) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  setenv("COMMPRESS_GEMM_ALGORITHM", "no-such-algorithm", 1);
  linalg::detail::reset_scalapack_gemm_options();
  {
    ValidCall call(g);
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument,
                   "COMMPRESS_GEMM_* environment: unknown gemm algorithm 'no-such-algorithm'");
  }
  setenv("COMMPRESS_GEMM_ALGORITHM", "summa", 1);
  setenv("COMMPRESS_GEMM_CODEC", "lz4", 1);
  setenv("COMMPRESS_GEMM_REL_BOUND", "0", 1);
  linalg::detail::reset_scalapack_gemm_options();
  check_case<double>(cases()[0], g, "environment summa lz4");
  setenv("COMMPRESS_GEMM_REL_BOUND", "1e-3x", 1);
  linalg::detail::reset_scalapack_gemm_options();
  {
    ValidCall call(g);
    expect_failure(call.c.local, call.run(), ErrorCode::invalid_argument,
                   "COMMPRESS_GEMM_REL_BOUND='1e-3x' is not a number");
  }
  for (const char* v : {"COMMPRESS_GEMM_ALGORITHM", "COMMPRESS_GEMM_CODEC",
                        "COMMPRESS_GEMM_REL_BOUND"})
    unsetenv(v);
  linalg::detail::reset_scalapack_gemm_options();
}

// The BLAS threads a multiply or a factorization gives OpenBLAS: the node's cores divided by
// its ranks, unless the user named a count (ranks in namespaces or containers on one machine
// each look like a node of their own to MPI, and would all take every core).
TEST(LocalBlas, AThreadCountTheUserGaveStands) {
  const char* before = std::getenv("OPENBLAS_NUM_THREADS");
  const char* goto_before = std::getenv("GOTO_NUM_THREADS");
  const std::string saved = before ? before : "", goto_saved = goto_before ? goto_before : "";
  const int threads_before = openblas_get_num_threads();
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  openblas_set_num_threads(1);
  EXPECT_EQ(linalg::detail::set_blas_threads_for(MPI_COMM_WORLD), 1);
  EXPECT_EQ(openblas_get_num_threads(), 1);
  unsetenv("OPENBLAS_NUM_THREADS");
  unsetenv("GOTO_NUM_THREADS");
  MPI_Comm node = MPI_COMM_NULL;
  int on_node = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  const int share = int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN) / on_node));
  EXPECT_EQ(linalg::detail::set_blas_threads_for(MPI_COMM_WORLD), share);
  EXPECT_EQ(openblas_get_num_threads(), share);
  if (before) setenv("OPENBLAS_NUM_THREADS", saved.c_str(), 1);
  if (goto_before) setenv("GOTO_NUM_THREADS", goto_saved.c_str(), 1);
  openblas_set_num_threads(threads_before);
}

TEST(Pdgemm, ProcessesOutsideTheGridAreTurnedAway) {
  BlacsGrid g(1, 1);
  if (g.member()) return;
  ValidCall call(g);
  const std::vector<double> out = call.run();
  char message[256];
  EXPECT_EQ(commpress_gemm_last_error(message, sizeof message), int(ErrorCode::invalid_argument));
  EXPECT_NE(std::string(message).find("no grid position"), std::string::npos) << message;
}

TEST(Pdgemm, CompressedBlocksStayWithinTheirBound) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  const Case& c = cases()[0];
  struct Run {
    const char* codec;
    double rel;
  };
  for (const Run& r : {Run{"lz4", 0.0}, Run{"szp", 1e-4}}) {
    ASSERT_EQ(commpress_gemm_set_options("summa", r.codec, r.rel), 0) << r.codec;
    // Elements span [-1, 1), so a relative bound r allows an absolute error of 2r.
    const std::string label = std::string("summa ") + r.codec;
    if (!check_case<double>(c, g, label + " f64", 2 * r.rel)) continue;
    check_case<float>(c, g, label + " f32", 2 * r.rel);
  }
  EXPECT_EQ(commpress_gemm_set_options(nullptr, nullptr, 0), 0);
}

// The block layout is used where it lies; any other layout or a true submatrix is copied.
TEST(Pdgemm, BlockLayoutOperandsAreUsedInPlace) {
  BlacsGrid g = world_grid();
  ASSERT_TRUE(g.member());
  auto grid = linalg::Grid::from_blacs(g.context);
  ASSERT_TRUE(grid.ok()) << grid.status().to_string();
  const int m = 23, n = 17;
  ScaMatrix<double> whole(m, n, blocks_of(m, g.nprow), blocks_of(n, g.npcol), 0, 0, g, 5, 3);
  linalg::detail::BlockOperand<double> in_place;
  ASSERT_TRUE(in_place.prepare({whole.local.data(), &whole.desc, 1, 1, m, n}, *grid, g.context)
                  .ok());
  EXPECT_TRUE(in_place.in_place());
  EXPECT_EQ(in_place.view().data, whole.local.data());
  in_place.copy_in();  // nothing to move, but every process calls alike
  linalg::detail::BlockOperand<double> part;
  ASSERT_TRUE(part.prepare({whole.local.data(), &whole.desc, 2, 1, m - 1, n}, *grid, g.context)
                  .ok());
  EXPECT_FALSE(part.in_place());
  part.copy_in();
  // The copy holds rows 2.. of the matrix in the block layout of an (m-1) x n matrix.
  const linalg::DistMatrix<double>& v = part.view();
  const int64_t r0 = v.row_split(*grid).offset(grid->row());
  const int64_t c0 = v.col_split(*grid).offset(grid->col());
  int wrong = 0;
  for (int64_t j = 0; j < v.local_cols(*grid); ++j)
    for (int64_t i = 0; i < v.local_rows(*grid); ++i)
      wrong += v.data[i + j * v.ld] != linalg::detail::matrix_value(5, r0 + i + 1, c0 + j);
  EXPECT_EQ(wrong, 0);
  // 2 x 3 blocks are block-cyclic over these grids (ceil(23 / nprow) > 2), never the layout.
  ScaMatrix<double> cyclic(m, n, 2, 3, 0, 0, g, 5);
  EXPECT_FALSE(linalg::detail::is_block_layout(cyclic.desc, 1, 1, m, n, *grid));
  EXPECT_TRUE(linalg::detail::is_block_layout(whole.desc, 1, 1, m, n, *grid));
  Descriptor shifted = whole.desc;
  shifted[6] = g.nprow - 1;  // another source process row
  EXPECT_EQ(linalg::detail::is_block_layout(shifted, 1, 1, m, n, *grid), g.nprow == 1);
}

TEST(GridFromBlacs, PlacesEveryProcessWhereBlacsDoes) {
  for (const char* order : {"Row", "Col"})
    for (auto [rows, cols] : shapes()) {
      BlacsGrid g(rows, cols, order);
      auto grid = linalg::Grid::from_blacs(g.context);
      if (!g.member()) {
        ASSERT_FALSE(grid.ok());
        EXPECT_EQ(grid.status().code(), ErrorCode::invalid_argument);
        continue;
      }
      ASSERT_TRUE(grid.ok()) << grid.status().to_string();
      EXPECT_EQ(grid->rows(), g.nprow);
      EXPECT_EQ(grid->cols(), g.npcol);
      EXPECT_EQ(grid->row(), g.myrow) << order;
      EXPECT_EQ(grid->col(), g.mycol) << order;
      EXPECT_EQ(grid->layers(), 1);
      int rank = -1;
      MPI_Comm_rank(grid->comm(), &rank);
      EXPECT_EQ(rank, grid->rank_of(g.myrow, g.mycol));
      // The row communicator holds the processes BLACS calls this process row.
      int row_size = 0;
      MPI_Comm_size(grid->row_comm(), &row_size);
      EXPECT_EQ(row_size, g.npcol);
    }
}

TEST(Pdgemm, MatchesScaLapackThroughTheReferenceAlgorithm) { run_all("scalapack", true); }

// A column-major BLACS grid numbers its processes differently; the Grid follows BLACS.
TEST(Pdgemm, MatchesScaLapackOnColumnOrderedGrids) {
  EXPECT_EQ(commpress_gemm_set_options("auto", "none", 0), 0);
  for (auto [rows, cols] : shapes()) {
    BlacsGrid g(rows, cols, "Col");
    if (!g.member()) continue;
    const std::string label = "Col " + std::to_string(rows) + "x" + std::to_string(cols);
    check_case<double>(cases()[0], g, label + " case 0");
    check_case<float>(cases()[1], g, label + " case 1");
  }
  EXPECT_EQ(commpress_gemm_set_options(nullptr, nullptr, 0), 0);
}

TEST(Pdgemm, MatchesScaLapackWithEveryAlgorithm) {
  for (const char* algorithm : {"auto", "summa", "cannon", "srumma", "summa25d", "cannon25d"})
    run_all(algorithm, false);
  EXPECT_EQ(commpress_gemm_set_options(nullptr, nullptr, 0), 0);
}

}  // namespace
}  // namespace commpress::testing
