// The zero-configuration probe stays within its repetition budgets (quick_probe.hpp,
// link_probe.hpp): rank 0 counts the round trips of the links' ping-pongs and the calls of
// the comparisons on one node, and neither may pass the most its budgets allow, nor those
// budgets the numbers docs/models.md states for the probe's cost. No time is asserted: a probe
// that repeats past its budgets (a floor rule that never stops, a count that is not kept, a
// size or a comparison more) fails here on any machine.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "comm/probe/link_probe.hpp"
#include "comm/probe/quick_probe.hpp"
#include "comm_test_support.hpp"

namespace {

using namespace commpress::testing::comm;
namespace probe = commpress::comm::probe;

// The budgets docs/models.md gives ("Zero configuration": the probe's table).
constexpr int kDocumentedRoundTripsPerLink = 288;
constexpr int kDocumentedWindowCalls = 68;

TEST(ProbeBudget, TheBudgetsAreTheDocumentedOnes) {
  EXPECT_LE(probe::kMaxRoundTripsPerLink, kDocumentedRoundTripsPerLink);
  EXPECT_LE(probe::kMaxWindowCalls, kDocumentedWindowCalls);
}

TEST(ProbeBudget, OneNodeStaysWithinItsCounts) {
  std::vector<int> nodes(static_cast<size_t>(world_size()), 0);
  auto got = probe::quick_probe(MPI_COMM_WORLD, nodes, probe::ProbeCall{});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  if (world_rank() != 0) return;
  std::printf("probe: %s; %d round trips, %d window calls\n", got->phases.c_str(),
              got->round_trips, got->window_calls);
  if (world_size() == 1) {
    EXPECT_EQ(got->round_trips, 0);
    EXPECT_EQ(got->window_calls, 0);
    return;
  }
  // One link class (the same node): at least two round trips per size, six sizes.
  EXPECT_GE(got->round_trips, 12);
  EXPECT_LE(got->round_trips, probe::kMaxRoundTripsPerLink);
  // Four comparisons of two sizes, each a warm-up round and one paired one at least: a
  // size stops after its first paired ratio where that has MPI's own no slower (ASan's
  // instrumented SharedWindow against the uninstrumented MPI does that on any machine).
  EXPECT_GE(got->window_calls, 4 * 2 * 2 * 2);
  EXPECT_LE(got->window_calls, probe::kMaxWindowCalls);
}

TEST(ProbeBudget, TwoNodesStayWithinTheirCounts) {
  if (world_size() < 3) GTEST_SKIP() << "needs a second rank on rank 0's node and another node";
  // Ranks 0 and 1 one node, the others another: both link classes, no SharedWindow.
  std::vector<int> nodes(static_cast<size_t>(world_size()), 1);
  nodes[0] = nodes[1] = 0;
  auto got = probe::quick_probe(MPI_COMM_WORLD, nodes, probe::ProbeCall{});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  if (world_rank() != 0) return;
  EXPECT_GE(got->round_trips, 2 * 12);
  EXPECT_LE(got->round_trips, 2 * probe::kMaxRoundTripsPerLink);
  EXPECT_EQ(got->window_calls, 0);
}

}  // namespace
