// The all-to-all cost models (src/model/alltoall_costs.cpp): Bruck's fewer latencies win for
// small blocks on many ranks, pairwise exchange's fewer bytes for large blocks; compression
// pays on a slow link with a good ratio and not with none; Auto picks accordingly.
#include <gtest/gtest.h>

#include "commpress/model.hpp"
#include "support/dev_box_profile.hpp"

namespace model = commpress::model;
using commpress::Algorithm;
using commpress::Operation;

namespace {

model::Scenario alltoall(double block_bytes, int ranks, double ratio) {
  model::Scenario s;
  s.op = Operation::alltoall;
  s.bytes = block_bytes;
  s.ranks = ranks;
  s.ratio.at_bound = ratio;
  return s;
}

double predict(Algorithm a, const model::Scenario& s) {
  const model::MachineProfile m = commpress::testing::dev_box_profile();
  return model::predict(m, m.rates("szp", commpress::codec::Dtype::f32), a, s);
}

TEST(AlltoallModel, BruckForSmallBlocksPairwiseForLargeOnes) {
  const auto small = alltoall(64, 64, 4), large = alltoall(64 << 20, 8, 4);
  EXPECT_LT(predict(Algorithm::Bruck, small), predict(Algorithm::Pairwise, small));
  EXPECT_LT(predict(Algorithm::Pairwise, large), predict(Algorithm::Bruck, large));
}

TEST(AlltoallModel, CompressionPaysOnlyWithARatioOnASlowLink) {
  model::MachineProfile m = commpress::testing::dev_box_profile();
  for (model::LinkParams* lp : {&m.network.eager, &m.network.rendezvous}) lp->beta *= 100;
  const model::CodecRates* rates = m.rates("szp", commpress::codec::Dtype::f32);
  const auto candidates = model::compressed_algorithms(Operation::alltoall);
  ASSERT_EQ(candidates.size(), 2u);
  const auto good = model::choose(m, rates, alltoall(16 << 20, 4, 8), candidates);
  EXPECT_NE(good.algorithm, Algorithm::Mpi);
  const auto none = model::choose(m, rates, alltoall(16 << 20, 4, 1), candidates);
  EXPECT_EQ(none.algorithm, Algorithm::Mpi);
}

}  // namespace
