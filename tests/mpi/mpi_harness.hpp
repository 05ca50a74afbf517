// GoogleTest under MPI: every rank runs every test, rank 0 prints, and failures from all
// ranks are gathered to rank 0 tagged with their rank. Tests must reach every collective on
// every rank even after a failed expectation (prefer EXPECT_* between collectives); a rank
// that returns early leaves the others waiting until the ctest timeout.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace commpress::testing::mpi {

int rank(MPI_Comm comm = MPI_COMM_WORLD);
int size(MPI_Comm comm = MPI_COMM_WORLD);

// True on every rank when flag is true on any rank (collective).
bool any_rank(bool flag, MPI_Comm comm = MPI_COMM_WORLD);

// Records "Suite.Test at file:line: message" for every failed assertion on this rank.
class FailureCollector : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override;
  void OnTestPartResult(const ::testing::TestPartResult& result) override;
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  std::string current_test_;
  std::vector<std::string> failures_;
};

struct RankFailure {
  int rank = 0;
  std::string text;
};

// Collective: every rank's failure texts, in rank order, on root; empty on the other ranks.
std::vector<RankFailure> gather_failures(const std::vector<std::string>& local, int root = 0,
                                         MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace commpress::testing::mpi
