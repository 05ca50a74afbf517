// A block transfer that fails on one rank part-way through Cannon's loop: every rank of every
// layer returns an error (none waits for the failed rank in a shift or in the layer
// reduction: a hang would run into this test's timeout), and the next multiply succeeds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm/transport/frame_transport.hpp"
#include "commpress/linalg.hpp"
#include "gemm_test_support.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using linalg::GemmAlgorithm;
using linalg::Trans;

// The last rank runs Cannon's steps on every layout here: with one step (q = 1) and several
// layers the step falls to the last layer.
struct Layout {
  int rows, cols, layers;
  GemmAlgorithm algorithm;
  int exchanges;  // the last rank's block exchanges: the skew's two, then two per shift
};

std::vector<Layout> layouts() {
  switch (mpi::size()) {
    case 2:
      return {{1, 1, 2, GemmAlgorithm::Cannon25D, 2}};
    case 4:
      return {{2, 2, 1, GemmAlgorithm::Cannon, 4}, {1, 1, 4, GemmAlgorithm::Cannon25D, 2}};
    default:
      return {};
  }
}

Result<linalg::GemmReport> multiply(const linalg::Grid& g, GemmAlgorithm alg, bool overlap) {
  constexpr int64_t m = 37, n = 29, k = 41;
  LocalMatrix<double> a(m, k, g, 21), b(k, n, g, 22), c(m, n, g, 23);
  linalg::GemmOptions o;
  o.algorithm = alg;
  o.overlap = overlap;
  return linalg::gemm<double>(Trans::N, Trans::N, 1.0, a.view, b.view, 0.0, c.view, g, o);
}

TEST(GemmCannonFailure, OneRankFailingMidLoopFailsEveryRankTogether) {
  for (const Layout& l : layouts()) {
    auto g = linalg::Grid::create(MPI_COMM_WORLD, l.rows, l.cols, l.layers);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    for (bool overlap : {true, false})
      for (int nth = 1; nth <= l.exchanges; ++nth) {
        const std::string what = std::string(linalg::gemm_algorithm_name(l.algorithm)) + " " +
                                 std::to_string(l.rows) + "x" + std::to_string(l.cols) + "x" +
                                 std::to_string(l.layers) + " exchange " + std::to_string(nth) +
                                 (overlap ? " overlapped" : " blocking");
        if (mpi::rank() == mpi::size() - 1) comm::detail::fail_exchange_for_testing(nth);
        auto r = multiply(*g, l.algorithm, overlap);
        comm::detail::fail_exchange_for_testing(0);
        // Every rank fails: the lowest failing rank with its own error (the injected one, or
        // what it saw first from the failed rank's blocks), the others naming that rank.
        ASSERT_FALSE(r.ok()) << what;
        auto again = multiply(*g, l.algorithm, overlap);
        EXPECT_TRUE(again.ok()) << what << ": " << again.status().to_string();
      }
  }
}

}  // namespace
}  // namespace commpress::testing
