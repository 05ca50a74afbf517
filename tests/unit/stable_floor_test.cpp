// The probe's repetition rule (comm/probe/stable_floor.hpp), driven with made-up run times and
// an injected clock: it stops as soon as a floor shows, runs to its count where none does, and
// stops at its time budget on a slow machine; the profile's rule (no floor) runs the budget
// out. A rule that repeats more than its budget allows, or stops on one lucky run, fails here.
#include <gtest/gtest.h>

#include <vector>

#include "comm/probe/stable_floor.hpp"

namespace {

using commpress::comm::probe::FloorBudget;
using commpress::comm::probe::StableFloor;

// Runs of the given times, each run `tick` seconds on the injected clock; the runs it took.
int runs_taken(const FloorBudget& budget, const std::vector<double>& times, double tick,
               double* fastest = nullptr) {
  StableFloor floor(budget);
  double clock = 0;
  for (size_t i = 0; i < times.size() && !floor.done(clock); ++i) {
    floor.add(times[i]);
    clock += tick;
  }
  if (fastest) *fastest = floor.fastest();
  return floor.runs();
}

TEST(StableFloor, StopsWhenTheFastestTwoAgree) {
  double fastest = 0;
  // A slow first run, then the floor twice: three runs.
  EXPECT_EQ(runs_taken({2, 10, 0, 0.05}, {3e-3, 1.00e-3, 1.02e-3, 1e-3, 1e-3}, 0, &fastest), 3);
  EXPECT_DOUBLE_EQ(fastest, 1.00e-3);
  // One lucky run among waits is no floor: it goes on until a second run comes near it.
  EXPECT_EQ(runs_taken({2, 10, 0, 0.05}, {5e-3, 1e-3, 4e-3, 3e-3, 6e-3, 1.01e-3, 1e-3}, 0), 6);
  // Never before min_runs, even where the first runs agree.
  EXPECT_EQ(runs_taken({12, 64, 0, 0.1}, std::vector<double>(64, 2e-5), 0), 12);
}

TEST(StableFloor, NoFloorRunsToTheCountOrTheBudget) {
  std::vector<double> waits;  // every run waits a different time for a core: no two agree
  for (int i = 0; i < 200; ++i) waits.push_back(1e-3 * (1 + 0.5 * i));
  EXPECT_EQ(runs_taken({12, 64, 0, 0.1}, waits, 1e-3), 64);
  // 30 ms of round trips of 4 ms each: 8 runs, then the clock stops it.
  EXPECT_EQ(runs_taken({2, 64, 0.03, 0.1}, waits, 4e-3), 8);
  // The budget never cuts below min_runs.
  EXPECT_EQ(runs_taken({12, 64, 0.03, 0.1}, waits, 3e-3), 12);
}

TEST(StableFloor, ANegativeAgreementRunsTheBudgetOut) {
  // `commpress profile`'s ping-pong: equal runs do not stop it; 50 ms of 1.1 ms runs do.
  EXPECT_EQ(runs_taken({3, 200, 0.05, -1}, std::vector<double>(500, 1e-3), 1.1e-3), 46);
}

}  // namespace
