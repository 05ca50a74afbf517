// gemm(plan, ...): a plan's fields are what execution uses. A plan from plan_gemm runs exactly
// as the call that plans for itself (same bits of C, same report); the pure plan over the rank
// count is the plan a launch with those ranks makes and runs; a changed panel width is the one
// that runs; plans that do not fit the call, or differ between ranks, fail on every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "commpress/linalg.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using codec::Dtype;
using codec::ErrorBound;
using linalg::DistMatrix;
using linalg::GemmAlgorithm;
using linalg::GemmOptions;
using linalg::GemmPlan;
using linalg::GemmReport;
using linalg::Grid;
using linalg::Trans;

Grid squarest(int layers = 1) {
  const int p = mpi::size() / layers;
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  return *Grid::create(MPI_COMM_WORLD, rows, p / rows, layers);
}

// A rank's blocks of op(A) = A (m x k), op(B) = B^T (B stored n x k), and C (m x n), filled from
// the global indices so every grid holds the same matrices.
struct Blocks {
  std::vector<double> a, b, c;
  DistMatrix<double> da, db, dc;
};

Blocks make_blocks(const Grid& g, int64_t m, int64_t n, int64_t k) {
  Blocks x;
  auto fill = [&g](std::vector<double>& v, DistMatrix<double>& d, int64_t rows, int64_t cols,
                   double seed) {
    d.rows = rows;
    d.cols = cols;
    const int64_t lr = d.local_rows(g), lc = d.local_cols(g);
    const int64_t r0 = d.row_split(g).offset(g.row()), c0 = d.col_split(g).offset(g.col());
    v.assign(size_t(std::max<int64_t>(1, lr * lc)), 0.0);
    for (int64_t j = 0; j < lc; ++j)
      for (int64_t i = 0; i < lr; ++i)
        v[size_t(i + j * lr)] = std::sin(seed * double(r0 + i + 1) + 0.37 * double(c0 + j));
    d.data = v.data();
    d.ld = std::max<int64_t>(1, lr);
  };
  fill(x.a, x.da, m, k, 1.3);
  fill(x.b, x.db, n, k, 0.7);
  fill(x.c, x.dc, m, n, 2.1);
  return x;
}

constexpr int64_t kM = 45, kN = 38, kK = 51;

void expect_same_report(const GemmReport& x, const GemmReport& y, bool same_prediction = true) {
  EXPECT_EQ(x.algorithm, y.algorithm);
  EXPECT_EQ(x.grid_rows, y.grid_rows);
  EXPECT_EQ(x.grid_cols, y.grid_cols);
  EXPECT_EQ(x.layers, y.layers);
  EXPECT_EQ(x.codec, y.codec);
  EXPECT_EQ(x.raw_bytes, y.raw_bytes);
  EXPECT_EQ(x.bytes_sent, y.bytes_sent);
  EXPECT_EQ(x.memory_bytes, y.memory_bytes);
  if (same_prediction) EXPECT_EQ(x.predicted_seconds, y.predicted_seconds);
  EXPECT_EQ(x.guaranteed_abs_bound, y.guaranteed_abs_bound);
}

// The call that plans for itself, and the same call given the plan it makes: same C, same
// report, and the report is the plan's.
void expect_plan_runs_as_the_call(const Grid& g, const GemmOptions& o) {
  auto plan = linalg::plan_gemm(Trans::N, Trans::T, kM, kN, kK, Dtype::f64, g, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  Blocks x = make_blocks(g, kM, kN, kK), y = make_blocks(g, kM, kN, kK);
  auto by_call = linalg::gemm<double>(Trans::N, Trans::T, 0.5, x.da, x.db, -1.0, x.dc, g, o);
  ASSERT_TRUE(by_call.ok()) << by_call.status().to_string();
  auto by_plan = linalg::gemm<double>(*plan, 0.5, y.da, y.db, -1.0, y.dc, g);
  ASSERT_TRUE(by_plan.ok()) << by_plan.status().to_string();
  const std::string what = std::string(linalg::gemm_algorithm_name(plan->algorithm)) + " " +
                           plan->codec;
  EXPECT_EQ(std::memcmp(x.c.data(), y.c.data(), x.c.size() * sizeof(double)), 0) << what;
  expect_same_report(*by_call, *by_plan);
  EXPECT_EQ(by_plan->algorithm, plan->algorithm) << what;
  EXPECT_EQ(by_plan->predicted_seconds, plan->predicted_seconds) << what;
  EXPECT_EQ(by_plan->codec, plan->compress_a || plan->compress_b ? plan->codec : "none") << what;
  // A bound on C exactly when a lossy bound applies to an operand that was compressed.
  const bool lossy = plan->bound_a.mode != codec::BoundMode::lossless ||
                     plan->bound_b.mode != codec::BoundMode::lossless;
  EXPECT_EQ(by_plan->guaranteed_abs_bound > 0, lossy) << what;
}

TEST(GemmExecutePlan, PlanRunsAsTheCallThatMadeIt) {
  Grid g = squarest();
  for (const char* alg : {"auto", "summa", "srumma", "scalapack", "cannon"}) {
    GemmOptions o;
    o.algorithm = *linalg::parse_gemm_algorithm(alg);
    if (o.algorithm == GemmAlgorithm::Cannon && g.rows() != g.cols()) continue;
    for (const char* codec : {"none", "zstd-1", "szp"}) {
      if (o.algorithm == GemmAlgorithm::Srumma && std::string(codec) != "none") continue;
      o.codec = codec;
      o.bound = std::string(codec) == "szp" ? ErrorBound::relative(1e-3) : ErrorBound::lossless();
      expect_plan_runs_as_the_call(g, o);
    }
  }
  if (mpi::size() % 2 == 0) {  // 2.5D: layers of the squarest face
    Grid layered = squarest(2);
    for (const char* alg : {"summa25d", "cannon25d"}) {
      GemmOptions o;
      o.algorithm = *linalg::parse_gemm_algorithm(alg);
      if (o.algorithm == GemmAlgorithm::Cannon25D && layered.rows() != layered.cols()) continue;
      o.codec = "szp";
      o.bound = ErrorBound::absolute(1e-4);
      expect_plan_runs_as_the_call(layered, o);
    }
  }
}

// What `commpress plan gemm` computes (pure, from the rank count) is what the launch plans over
// its communicator, and the grid it names runs that algorithm.
TEST(GemmExecutePlan, PurePlanIsTheLaunchsPlan) {
  linalg::GemmProblem p;
  p.transa = Trans::N;
  p.transb = Trans::T;
  p.m = kM;
  p.n = kN;
  p.k = kK;
  p.ranks = mpi::size();
  p.ranks_per_node = mpi::size();  // one node (no COMMPRESS_PRETEND_RANKS_PER_NODE here)
  for (const char* codec : {"none", "auto"}) {
    GemmOptions o;
    o.codec = codec;
    auto pure = linalg::plan_gemm(p, o);
    ASSERT_TRUE(pure.ok()) << pure.status().to_string();
    auto over = linalg::plan_gemm(Trans::N, Trans::T, kM, kN, kK, Dtype::f64, MPI_COMM_WORLD, o);
    ASSERT_TRUE(over.ok()) << over.status().to_string();
    EXPECT_EQ(pure->algorithm, over->algorithm);
    EXPECT_EQ(pure->grid_rows, over->grid_rows);
    EXPECT_EQ(pure->grid_cols, over->grid_cols);
    EXPECT_EQ(pure->layers, over->layers);
    EXPECT_EQ(pure->codec, over->codec);
    EXPECT_EQ(pure->panel, over->panel);
    EXPECT_EQ(pure->predicted_seconds, over->predicted_seconds);
    EXPECT_EQ(pure->memory_bytes, over->memory_bytes);
    auto g = Grid::create(MPI_COMM_WORLD, pure->grid_rows, pure->grid_cols, pure->layers);
    ASSERT_TRUE(g.ok());
    Blocks x = make_blocks(*g, kM, kN, kK);
    auto r = linalg::gemm<double>(*pure, 1.0, x.da, x.db, 0.0, x.dc, *g);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->algorithm, pure->algorithm);
  }
}

// SUMMA's panel width is the plan's: a plan changed to width 3 runs as the call asking for 3.
TEST(GemmExecutePlan, ChangedPanelIsTheOneThatRuns) {
  Grid g = squarest();
  GemmOptions o;
  o.algorithm = GemmAlgorithm::Summa;
  auto plan = linalg::plan_gemm(Trans::N, Trans::T, kM, kN, kK, Dtype::f64, g, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_GT(plan->panel, 0);
  GemmPlan narrow = *plan;
  narrow.panel = 3;
  o.panel = 3;
  Blocks x = make_blocks(g, kM, kN, kK), y = make_blocks(g, kM, kN, kK);
  auto by_call = linalg::gemm<double>(Trans::N, Trans::T, 1.0, x.da, x.db, 0.0, x.dc, g, o);
  auto by_plan = linalg::gemm<double>(narrow, 1.0, y.da, y.db, 0.0, y.dc, g);
  ASSERT_TRUE(by_call.ok() && by_plan.ok());
  EXPECT_EQ(std::memcmp(x.c.data(), y.c.data(), x.c.size() * sizeof(double)), 0);
  // The edited plan keeps the prediction it was made with; everything that ran is the same.
  expect_same_report(*by_call, *by_plan, false);
}

TEST(GemmExecutePlan, PlansThatDoNotFitFailOnEveryRank) {
  Grid g = squarest();
  auto plan = linalg::plan_gemm(Trans::N, Trans::T, kM, kN, kK, Dtype::f64, g, GemmOptions{});
  ASSERT_TRUE(plan.ok());
  auto fails = [&g](const GemmPlan& p, ErrorCode code, const char* what) {
    Blocks x = make_blocks(g, kM, kN, kK);
    auto r = linalg::gemm<double>(p, 1.0, x.da, x.db, 0.0, x.dc, g);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), code) << what << ": " << r.status().to_string();
  };
  GemmPlan other = *plan;
  other.k = kK + 1;
  fails(other, ErrorCode::invalid_argument, "another k");
  other = *plan;
  other.grid_rows = g.rows() + 1;
  fails(other, ErrorCode::invalid_argument, "another grid");
  other = *plan;
  other.algorithm = GemmAlgorithm::Auto;
  fails(other, ErrorCode::invalid_argument, "auto");
  other = *plan;
  other.algorithm = GemmAlgorithm::Summa;
  other.panel = 0;
  fails(other, ErrorCode::invalid_argument, "summa without a panel");
  other.panel = 4;
  other.codec = "zstd-1";
  other.compress_a = other.compress_b = false;
  if (g.size() > 1) fails(other, ErrorCode::invalid_argument, "summa leaving travelling pieces raw");
  other = *plan;
  other.algorithm = GemmAlgorithm::Srumma;
  other.panel = 0;
  other.codec = "lz4";
  other.compress_a = other.compress_b = false;
  fails(other, ErrorCode::unsupported, "srumma with a codec");
  if (mpi::size() > 1) {
    other = *plan;
    if (mpi::rank() == mpi::size() - 1) other.overlap = !other.overlap;
    fails(other, ErrorCode::mismatch, "one rank overlapping otherwise");
  }
}

}  // namespace
}  // namespace commpress::testing
