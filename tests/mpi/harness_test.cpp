// The MPI test harness itself: failures recorded on any rank reach rank 0 tagged with that
// rank, and the allreduced verdict is the same everywhere. Failures are fed to a private
// collector, so the suite itself stays green.
#include <gtest/gtest.h>

#include "mpi/mpi_harness.hpp"

namespace cmpi = commpress::testing::mpi;

namespace {

::testing::TestPartResult fake_failure(int line, const std::string& message) {
  return {::testing::TestPartResult::kNonFatalFailure, "fake_test.cpp", line, message.c_str()};
}

TEST(MpiHarness, FailureOnLastRankReachesRankZeroTagged) {
  const int last = cmpi::size() - 1;
  cmpi::FailureCollector collector;
  collector.OnTestStart(*::testing::UnitTest::GetInstance()->current_test_info());
  if (cmpi::rank() == last) collector.OnTestPartResult(fake_failure(42, "value was 7"));
  collector.OnTestPartResult(  // successes are not failures
      {::testing::TestPartResult::kSuccess, "fake_test.cpp", 1, ""});

  auto gathered = cmpi::gather_failures(collector.failures());
  EXPECT_TRUE(cmpi::any_rank(!collector.failures().empty()));
  if (cmpi::rank() != 0) {
    EXPECT_TRUE(gathered.empty());
    return;
  }
  ASSERT_EQ(gathered.size(), 1u);
  EXPECT_EQ(gathered[0].rank, last);
  EXPECT_NE(gathered[0].text.find("FailureOnLastRankReachesRankZeroTagged"), std::string::npos);
  EXPECT_NE(gathered[0].text.find("fake_test.cpp:42"), std::string::npos);
  EXPECT_NE(gathered[0].text.find("value was 7"), std::string::npos);
}

TEST(MpiHarness, FailuresFromManyRanksArriveInRankOrder) {
  cmpi::FailureCollector collector;
  // Rank r reports r failures, so every count differs and rank 0 reports none.
  for (int i = 0; i < cmpi::rank(); ++i)
    collector.OnTestPartResult(fake_failure(i, "rank " + std::to_string(cmpi::rank()) + " #" + std::to_string(i)));
  auto gathered = cmpi::gather_failures(collector.failures());
  if (cmpi::rank() != 0) return;
  size_t k = 0;
  for (int r = 1; r < cmpi::size(); ++r)
    for (int i = 0; i < r; ++i, ++k) {
      ASSERT_LT(k, gathered.size());
      EXPECT_EQ(gathered[k].rank, r);
      EXPECT_NE(gathered[k].text.find("rank " + std::to_string(r) + " #" + std::to_string(i)),
                std::string::npos);
    }
  EXPECT_EQ(gathered.size(), k);
}

TEST(MpiHarness, VerdictIsCleanWhenNoRankFailed) {
  EXPECT_FALSE(cmpi::any_rank(false));
  EXPECT_TRUE(cmpi::any_rank(cmpi::rank() == cmpi::size() - 1));
  cmpi::FailureCollector clean;
  EXPECT_TRUE(cmpi::gather_failures(clean.failures()).empty());
}

}  // namespace
