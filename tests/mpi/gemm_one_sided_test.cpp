// Auto never plans what the MPI library cannot run: SRUMMA reads across shared-memory domains
// through MPI windows, and where MPI_Win_create fails over the ranks (Open MPI 4.1 under
// `--mca btl tcp,self`: the ctest entry gemm_one_sided_test.tcp) Auto leaves SRUMMA out, the
// product is still right, and asking for SRUMMA fails on every rank with a clear error. Each
// entry pretends one rank per node (COMMPRESS_PRETEND_RANKS_PER_NODE=1, so SRUMMA needs
// windows) and reads the development box's profile, on which Auto picks SRUMMA where windows
// work (the entry with shared memory checks that, so the tcp entry's check can fail).
// COMMPRESS_TEST_WINDOWS (1 or 0) says whether windows work under the entry's launch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "comm/session/one_sided.hpp"
#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::GemmAlgorithm;
using linalg::GemmOptions;
using linalg::Grid;
using linalg::Trans;

constexpr int64_t kSize = 512;

GemmOptions lossy_auto() {
  GemmOptions o;
  o.codec = "auto";
  o.bound = codec::ErrorBound::relative(1e-6);
  return o;
}

linalg::GemmProblem four_single_rank_nodes() {
  linalg::GemmProblem p;
  p.m = p.n = p.k = kSize;
  p.ranks = 4;
  p.ranks_per_node = 1;
  return p;
}

// Pure planning: windows that do not work take SRUMMA out of Auto's candidates, and a forced
// SRUMMA fails with a message that says why; inside one domain SRUMMA needs none.
TEST(GemmOneSided, PurePlanLeavesSrummaOutWithoutWindows) {
  linalg::GemmProblem p = four_single_rank_nodes();
  auto with = linalg::plan_gemm(p, lossy_auto());
  ASSERT_TRUE(with.ok()) << with.status().to_string();
  ASSERT_EQ(with->algorithm, GemmAlgorithm::Srumma) << "the profile no longer prefers SRUMMA here";
  p.one_sided = false;
  auto without = linalg::plan_gemm(p, lossy_auto());
  ASSERT_TRUE(without.ok()) << without.status().to_string();
  EXPECT_NE(without->algorithm, GemmAlgorithm::Srumma);
  GemmOptions forced = lossy_auto();
  forced.algorithm = GemmAlgorithm::Srumma;
  forced.codec = "none";
  auto refused = linalg::plan_gemm(p, forced);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::unsupported);
  EXPECT_NE(refused.status().message().find("MPI_Win_create"), std::string::npos)
      << refused.status().message();
  p.ranks_per_node = 4;  // one domain: shared memory only
  EXPECT_TRUE(linalg::plan_gemm(p, forced).ok());
}

// Over this launch's ranks: the check agrees with what the launch allows, Auto's plan runs and
// is right, and a forced SRUMMA either runs or fails on every rank.
TEST(GemmOneSided, AutoRunsWhatTheLibraryCan) {
  const char* expect = std::getenv("COMMPRESS_TEST_WINDOWS");
  ASSERT_NE(expect, nullptr) << "run through ctest (gemm_one_sided_test.*)";
  auto works = comm::detail::one_sided_windows_work(MPI_COMM_WORLD);
  ASSERT_TRUE(works.ok()) << works.status().to_string();
  EXPECT_EQ(*works, std::string(expect) == "1");
  auto again = comm::detail::one_sided_windows_work(MPI_COMM_WORLD);  // kept: no collective
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *works);

  GemmOptions exact;  // Auto, raw blocks: the product is checked to rounding
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, kSize, kSize, kSize, codec::Dtype::f64,
                                MPI_COMM_WORLD, exact);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  if (mpi::size() > 1) EXPECT_EQ(plan->algorithm == GemmAlgorithm::Srumma, *works);
  if (!*works) EXPECT_NE(plan->algorithm, GemmAlgorithm::Srumma);
  auto grid = Grid::create(MPI_COMM_WORLD, plan->grid_rows, plan->grid_cols, plan->layers);
  ASSERT_TRUE(grid.ok()) << grid.status().to_string();
  LocalMatrix<double> a(kSize, kSize, *grid, 11), b(kSize, kSize, *grid, 12),
      c(kSize, kSize, *grid, 13);
  auto r = linalg::gemm<double>(*plan, 1.0, a.view, b.view, 0.0, c.view, *grid);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Expected e = expected_block<double>(Trans::N, Trans::N, kSize, kSize, kSize, 1.0, 11, 12,
                                            0.0, 13, *grid);
  EXPECT_LE(worst_error_ratio(c, e), 1.0);

  GemmOptions forced;
  forced.algorithm = GemmAlgorithm::Srumma;
  auto srumma = linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view,
                                     *grid, forced);
  if (*works || mpi::size() == 1) {
    EXPECT_TRUE(srumma.ok()) << srumma.status().to_string();
  } else {
    ASSERT_FALSE(srumma.ok());
    EXPECT_EQ(srumma.status().code(), ErrorCode::unsupported) << srumma.status().to_string();
  }
}

}  // namespace
}  // namespace commpress::testing
