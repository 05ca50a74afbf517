// GemmAlgorithm::Srumma on every grid the world's size allows, with pretend nodes of 1 rank
// (every piece fetched by RMA), 2 ranks (some in place from the shared window, some
// fetched) and the whole machine (all in place): results against the serial reference and
// against ScaLAPACK on the same inputs, traffic against an independent count, and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "comm/session/environment.hpp"
#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "linalg/gemm/srumma_tasks.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::BlockSplit;
using linalg::GemmAlgorithm;
using linalg::Grid;
using linalg::Trans;

constexpr Trans kN = Trans::N, kT = Trans::T;

// Every pr x pc grid over the world.
std::vector<Grid> world_grids() {
  std::vector<Grid> out;
  const int p = mpi::size();
  for (int r = 1; r <= p; ++r)
    if (p % r == 0) out.push_back(*Grid::create(MPI_COMM_WORLD, r, p / r));
  return out;
}

// Pretend nodes of n consecutive ranks for one scope (0: the real node, i.e. every rank).
class PretendNodes {
 public:
  explicit PretendNodes(int n) {
    if (n > 0)
      setenv("COMMPRESS_PRETEND_RANKS_PER_NODE", std::to_string(n).c_str(), 1);
    else
      unsetenv("COMMPRESS_PRETEND_RANKS_PER_NODE");
    commpress::comm::detail::reread_environment_for_testing();  // read once per process
  }
  ~PretendNodes() {
    unsetenv("COMMPRESS_PRETEND_RANKS_PER_NODE");
    commpress::comm::detail::reread_environment_for_testing();
  }
};

struct Case {
  Trans ta, tb;
  int64_t m, n, k;
  double alpha, beta;
};

std::string describe(const Case& c, const Grid& g, int pretend) {
  return std::string(c.ta == kN ? "N" : "T") + (c.tb == kN ? "N" : "T") + " " +
         std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " alpha " +
         std::to_string(c.alpha) + " beta " + std::to_string(c.beta) + " on " +
         std::to_string(g.rows()) + "x" + std::to_string(g.cols()) + ", pretend " +
         std::to_string(pretend);
}

// Elements of the stored rows x cols matrix's region [r0, r0+rn) x [c0, c0+cn) that this rank
// does not own.
int64_t not_owned(int64_t rows, int64_t cols, int64_t r0, int64_t rn, int64_t c0, int64_t cn,
                  const Grid& g) {
  auto overlap = [](int64_t a0, int64_t an, int64_t b0, int64_t bn) {
    return std::max<int64_t>(0, std::min(a0 + an, b0 + bn) - std::max(a0, b0));
  };
  const BlockSplit rs{rows, g.rows()}, cs{cols, g.cols()};
  return rn * cn - overlap(r0, rn, rs.offset(g.row()), rs.size(g.row())) *
                       overlap(c0, cn, cs.offset(g.col()), cs.size(g.col()));
}

// Bytes this rank must fetch when every other rank is on another node: its rows of op(A) and
// columns of op(B) over all of k, each element once, minus what it owns itself.
uint64_t remote_bytes(const Case& c, const Grid& g, size_t elem) {
  const BlockSplit ms{c.m, g.rows()}, ns{c.n, g.cols()};
  const int64_t r0 = ms.offset(g.row()), mi = ms.size(g.row());
  const int64_t c0 = ns.offset(g.col()), nj = ns.size(g.col());
  if (mi == 0 || nj == 0 || c.k == 0) return 0;
  const int64_t a =
      c.ta == kN ? not_owned(c.m, c.k, r0, mi, 0, c.k, g) : not_owned(c.k, c.m, 0, c.k, r0, mi, g);
  const int64_t b =
      c.tb == kN ? not_owned(c.k, c.n, 0, c.k, c0, nj, g) : not_owned(c.n, c.k, c0, nj, 0, c.k, g);
  return uint64_t(a + b) * elem;
}

template <class T>
struct Operands {
  LocalMatrix<T> a, b;
  Operands(const Case& c, const Grid& g)
      : a(c.ta == kN ? c.m : c.k, c.ta == kN ? c.k : c.m, g, 21, 0, 1),
        b(c.tb == kN ? c.k : c.n, c.tb == kN ? c.n : c.k, g, 22, 0, 2) {}
};

// C's initial state: from seed 23, or NaN everywhere when beta == 0 (must be overwritten).
template <class T>
LocalMatrix<T> initial_c(const Case& c, const Grid& g) {
  LocalMatrix<T> out(c.m, c.n, g, 23, 0, 3);
  if (c.beta == 0) out.set_all(std::numeric_limits<T>::quiet_NaN());
  return out;
}

template <class T>
void check(const Case& c, const Grid& g, int pretend, bool against_scalapack) {
  SCOPED_TRACE(describe(c, g, pretend));
  PretendNodes scope(pretend);
  Operands<T> ops(c, g);
  LocalMatrix<T> out = initial_c<T>(c, g);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::Srumma;
  auto r =
      linalg::gemm<T>(c.ta, c.tb, T(c.alpha), ops.a.view, ops.b.view, T(c.beta), out.view, g, o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();  // agreed: every rank leaves alike
  EXPECT_EQ(r->algorithm, GemmAlgorithm::Srumma);
  EXPECT_EQ(r->codec, "none");
  EXPECT_EQ(r->raw_bytes, r->bytes_sent);
  const Expected e = expected_block<T>(c.ta, c.tb, c.m, c.n, c.k, c.alpha, 21, 22, c.beta, 23, g);
  EXPECT_LE(worst_error_ratio(out, e), 1.0);

  const size_t elem = sizeof(T);
  const uint64_t own_blocks = uint64_t(ops.a.view.local_rows(g) * ops.a.view.local_cols(g) +
                                       ops.b.view.local_rows(g) * ops.b.view.local_cols(g)) *
                              elem;
  if (pretend == 0 || pretend >= g.size()) {
    // One domain: everything read in place; the only extra memory is the shared copy.
    EXPECT_EQ(r->bytes_sent, 0u);
    EXPECT_EQ(r->memory_bytes, g.size() > 1 ? own_blocks : 0u);
  } else if (pretend == 1) {
    EXPECT_EQ(r->bytes_sent, remote_bytes(c, g, elem));
  }

  if (against_scalapack) {
    LocalMatrix<T> ref = initial_c<T>(c, g);
    o.algorithm = GemmAlgorithm::ScaLapack;
    auto s =
        linalg::gemm<T>(c.ta, c.tb, T(c.alpha), ops.a.view, ops.b.view, T(c.beta), ref.view, g, o);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    double worst = 0;
    for (int64_t j = 0; j < e.cols; ++j)
      for (int64_t i = 0; i < e.rows; ++i) {
        const double d = std::fabs(double(out.at(i, j)) - double(ref.at(i, j)));
        worst = std::max(worst, d / (2 * e.tolerance[size_t(i + j * e.rows)]));
      }
    EXPECT_LE(worst, 1.0) << "srumma and ScaLAPACK differ";
  }
}

const int kPretend[] = {1, 2, 0};

TEST(GemmSrumma, AwkwardSizesEveryTransposeMatchReferenceAndScaLapack) {
  for (const Grid& g : world_grids())
    for (int pretend : kPretend)
      for (Trans ta : {kN, kT})
        for (Trans tb : {kN, kT}) {
          check<double>({ta, tb, 101, 77, 53, 1.0, 0.0}, g, pretend, true);
          check<float>({ta, tb, 37, 29, 41, -0.5, 2.0}, g, pretend, true);
        }
}

TEST(GemmSrumma, TinyAndDegenerateSizes) {
  const Case cases[] = {
      {kN, kN, 5, 3, 2, 1.5, -1.0},  // fewer rows or columns than grid positions
      {kT, kN, 5, 3, 2, 1.0, 0.0},  {kN, kT, 7, 9, 1, 2.0, 0.5},  // k = 1: a single k segment
      {kT, kT, 2, 3, 1, -1.0, 0.0}, {kN, kN, 6, 4, 0, 1.0, 3.0},  // k = 0: C = beta * C
      {kT, kN, 6, 4, 0, 1.0, 0.0},  // k = 0, beta = 0: NaN C becomes zeros
      {kN, kN, 0, 4, 5, 1.0, 1.0},  // empty C
  };
  for (const Grid& g : world_grids())
    for (int pretend : kPretend)
      for (const Case& c : cases) check<double>(c, g, pretend, false);
}

TEST(GemmSrumma, RectangularShapes) {
  const Case cases[] = {
      {kN, kN, 180, 4, 20, 1.0, 0.0},   // m >> n
      {kT, kN, 6, 8, 220, 0.75, 1.0},   // k >> m, n
      {kN, kT, 3, 150, 30, 1.0, -2.0},  // n >> m
      {kT, kT, 40, 9, 130, -1.25, 0.0},
  };
  for (const Grid& g : world_grids())
    for (int pretend : kPretend)
      for (const Case& c : cases) {
        check<double>(c, g, pretend, false);
        check<float>(c, g, pretend, false);
      }
}

TEST(GemmSrumma, FetchesLessWithLargerNodes) {
  const Case c{kN, kN, 60, 50, 70, 1.0, 0.0};
  for (const Grid& g : world_grids()) {
    Operands<double> ops(c, g);
    uint64_t fetched[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
      PretendNodes scope(i + 1);
      LocalMatrix<double> out = initial_c<double>(c, g);
      linalg::GemmOptions o;
      o.algorithm = GemmAlgorithm::Srumma;
      o.overlap = i == 0;  // also runs the fetch-then-multiply path
      auto r = linalg::gemm<double>(c.ta, c.tb, 1.0, ops.a.view, ops.b.view, 0.0, out.view, g, o);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      fetched[i] = r->bytes_sent;
      const Expected e = expected_block<double>(c.ta, c.tb, c.m, c.n, c.k, 1.0, 21, 22, 0.0, 23, g);
      EXPECT_LE(worst_error_ratio(out, e), 1.0);
    }
    EXPECT_LE(fetched[1], fetched[0]);
    if (g.size() > 1) {
      EXPECT_TRUE(mpi::any_rank(fetched[1] < fetched[0]))
          << "pairs of ranks in one pretend node read nothing in place";
    }
  }
}

// How many times the pieces of one operand cover each element of the stored rows x cols
// matrix (global coordinates); a piece outside its owner's block fails.
std::vector<int> coverage(const std::vector<linalg::detail::SrummaPiece>& pieces, int64_t rows,
                          int64_t cols, const Grid& g) {
  std::vector<int> count(size_t(rows * cols), 0);
  const BlockSplit rs{rows, g.rows()}, cs{cols, g.cols()};
  for (const auto& p : pieces) {
    const int prow = p.owner / g.cols(), pcol = p.owner % g.cols();
    EXPECT_GT(p.elements(), 0);
    EXPECT_LE(p.row0 + p.rows, rs.size(prow));
    EXPECT_LE(p.col0 + p.cols, cs.size(pcol));
    for (int64_t j = 0; j < p.cols; ++j)
      for (int64_t i = 0; i < p.rows; ++i)
        ++count[size_t(rs.offset(prow) + p.row0 + i + (cs.offset(pcol) + p.col0 + j) * rows)];
  }
  return count;
}

// The task list covers this rank's rows of op(A) and columns of op(B) exactly once per k
// step, from the right owners, in diagonal-shift order.
TEST(GemmSrummaTasks, CoverTheOperandsOnceInDiagonalShiftOrder) {
  const int64_t m = 23, n = 17, k = 19;
  for (const Grid& g : world_grids())
    for (Trans ta : {kN, kT})
      for (Trans tb : {kN, kT}) {
        SCOPED_TRACE(describe({ta, tb, m, n, k, 1, 0}, g, 0));
        const auto list = linalg::detail::srumma_tasks(ta, tb, m, n, k, g);
        const BlockSplit ms{m, g.rows()}, ns{n, g.cols()};
        const int64_t r0 = ms.offset(g.row()), mi = ms.size(g.row());
        const int64_t c0 = ns.offset(g.col()), nj = ns.size(g.col());
        if (mi == 0 || nj == 0) {
          EXPECT_TRUE(list.steps.empty());
          continue;
        }
        ASSERT_FALSE(list.steps.empty());
        const int kn = list.k_segments;
        EXPECT_EQ(list.steps.size(), size_t(kn));
        EXPECT_EQ(list.steps[0].k_index, (g.row() + g.col()) % kn);
        std::vector<linalg::detail::SrummaPiece> as, bs;
        int64_t ksum = 0;
        for (size_t s = 0; s < list.steps.size(); ++s) {
          const auto& st = list.steps[s];
          EXPECT_EQ(st.k_index, (list.steps[0].k_index + int(s)) % kn);
          ASSERT_EQ(st.a.size(), list.rows.size());
          ASSERT_EQ(st.b.size(), list.cols.size());
          for (size_t i = 0; i < st.a.size(); ++i) {
            EXPECT_EQ(ta == kN ? st.a[i].rows : st.a[i].cols, list.rows[i].size);
            EXPECT_EQ(ta == kN ? st.a[i].cols : st.a[i].rows, st.kk);
          }
          for (size_t j = 0; j < st.b.size(); ++j) {
            EXPECT_EQ(tb == kN ? st.b[j].cols : st.b[j].rows, list.cols[j].size);
            EXPECT_EQ(tb == kN ? st.b[j].rows : st.b[j].cols, st.kk);
          }
          as.insert(as.end(), st.a.begin(), st.a.end());
          bs.insert(bs.end(), st.b.begin(), st.b.end());
          ksum += st.kk;
        }
        EXPECT_EQ(ksum, k);
        // op(A)(r0.., :) and op(B)(:, c0..), in stored coordinates, each element once.
        const auto ca = coverage(as, ta == kN ? m : k, ta == kN ? k : m, g);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t p = 0; p < k; ++p) {
            const int want = i >= r0 && i < r0 + mi ? 1 : 0;
            EXPECT_EQ(ca[size_t(ta == kN ? i + p * m : p + i * k)], want);
          }
        const auto cb = coverage(bs, tb == kN ? k : n, tb == kN ? n : k, g);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t p = 0; p < k; ++p) {
            const int want = j >= c0 && j < c0 + nj ? 1 : 0;
            EXPECT_EQ(cb[size_t(tb == kN ? p + j * k : j + p * n)], want);
          }
      }
}

TEST(GemmSrumma, RefusesCodecsOnEveryRank) {
  for (const Grid& g : world_grids()) {
    LocalMatrix<double> a(8, 6, g, 1), b(6, 4, g, 2), c(8, 4, g, 3);
    linalg::GemmOptions o;
    o.algorithm = GemmAlgorithm::Srumma;
    o.codec = "lz4";
    auto r = linalg::gemm<double>(kN, kN, 1.0, a.view, b.view, 0.0, c.view, g, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::unsupported) << r.status().to_string();
  }
}

TEST(GemmSrumma, PretendNodesMustAgree) {
  if (mpi::size() == 1) GTEST_SKIP() << "needs two ranks";
  Grid g = world_grids().back();
  LocalMatrix<double> a(8, 6, g, 1), b(6, 4, g, 2), c(8, 4, g, 3);
  PretendNodes scope(mpi::rank() == 0 ? 1 : 2);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::Srumma;
  auto r = linalg::gemm<double>(kN, kN, 1.0, a.view, b.view, 0.0, c.view, g, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::mismatch) << r.status().to_string();
}

}  // namespace
}  // namespace commpress::testing
