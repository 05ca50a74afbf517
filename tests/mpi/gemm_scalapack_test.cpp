// The distributed-multiply plumbing (grid, block layout, argument agreement, the error bound)
// through GemmAlgorithm::ScaLapack: ScaLAPACK's pdgemm on the block layout must match the
// serial reference, and bad arguments must fail on every rank alike.
#include <gtest/gtest.h>

#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::GemmAlgorithm;
using linalg::Grid;
using linalg::Trans;

// The most-square 2-D grid for the world's size (rows <= cols).
Grid world_grid() {
  const int p = mpi::size();
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  return *Grid::create(MPI_COMM_WORLD, rows, p / rows);
}

template <class T>
void check_scalapack(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, double alpha,
                     double beta) {
  Grid g = world_grid();
  LocalMatrix<T> a(ta == Trans::N ? m : k, ta == Trans::N ? k : m, g, 11, 0, 1);
  LocalMatrix<T> b(tb == Trans::N ? k : n, tb == Trans::N ? n : k, g, 12);
  LocalMatrix<T> c(m, n, g, 13, 0, 2);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::ScaLapack;
  auto r = linalg::gemm<T>(ta, tb, T(alpha), a.view, b.view, T(beta), c.view, g, o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, GemmAlgorithm::ScaLapack);
  EXPECT_EQ(r->guaranteed_abs_bound, 0.0);
  Expected e = expected_block<T>(ta, tb, m, n, k, alpha, 11, 12, beta, 13, g);
  EXPECT_LE(worst_error_ratio(c, e), 1.0);
}

// ScaLAPACK moves raw blocks whatever codec is asked for: the inputs stay exact, so the report
// names no codec and promises no lossy error.
TEST(GemmScaLapack, LossyCodecRequestLeavesTheInputsExact) {
  Grid g = world_grid();
  LocalMatrix<double> a(40, 30, g, 11), b(30, 20, g, 12), c(40, 20, g, 13);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::ScaLapack;
  o.codec = "szp";
  o.bound = codec::ErrorBound::relative(1e-3);
  auto r = linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view, g, o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->codec, "none");
  EXPECT_EQ(r->guaranteed_abs_bound, 0.0);
  Expected e = expected_block<double>(Trans::N, Trans::N, 40, 20, 30, 1.0, 11, 12, 0.0, 13, g);
  EXPECT_LE(worst_error_ratio(c, e), 1.0);
}

TEST(GemmScaLapack, MatchesReferenceOnAwkwardSizes) {
  check_scalapack<double>(Trans::N, Trans::N, 101, 77, 53, 1.0, 0.0);
  check_scalapack<double>(Trans::T, Trans::N, 31, 40, 17, -0.5, 2.0);
  check_scalapack<double>(Trans::N, Trans::T, 9, 5, 7, 1.5, 1.0);
  check_scalapack<float>(Trans::T, Trans::T, 64, 33, 29, 2.0, -1.0);
}

TEST(GemmScaLapack, BadArgumentsFailOnEveryRank) {
  Grid g = world_grid();
  LocalMatrix<double> a(8, 6, g, 1), b(5, 4, g, 2), c(8, 4, g, 3);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::ScaLapack;
  auto r = linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view, g, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(r.status().message().find("inner dimensions"), std::string::npos)
      << r.status().to_string();
}

TEST(GemmScaLapack, MismatchedArgumentsAcrossRanksFailTogether) {
  Grid g = world_grid();
  LocalMatrix<double> a(8, 6, g, 1), b(6, 4, g, 2), c(8, 4, g, 3);
  linalg::GemmOptions o;
  o.algorithm = GemmAlgorithm::ScaLapack;
  const double alpha = mpi::rank() == mpi::size() - 1 ? 2.0 : 1.0;
  auto r = linalg::gemm<double>(Trans::N, Trans::N, alpha, a.view, b.view, 0.0, c.view, g, o);
  if (mpi::size() == 1) {
    EXPECT_TRUE(r.ok());
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::mismatch) << r.status().to_string();
  }
}

TEST(GemmGrid, RejectsShapesThatDoNotCoverTheCommunicator) {
  auto g = Grid::create(MPI_COMM_WORLD, 2, mpi::size(), 1);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("needs"), std::string::npos) << g.status().to_string();
}

}  // namespace
}  // namespace commpress::testing
