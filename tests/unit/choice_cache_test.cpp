// Auto's remembered decisions: the same as the model's for every input that can change one
// (the profile, by its fingerprint; the scenario; the candidates), however many are kept.
#include <gtest/gtest.h>

#include <vector>

#include "comm/selection/choice_cache.hpp"
#include "support/model_machines.hpp"

namespace {

using namespace commpress::model;
using commpress::codec::Dtype;
using commpress::comm::detail::remembered_break_even;
using commpress::comm::detail::remembered_choice;
using commpress::testing::machine;

constexpr double MiB = 1 << 20;

Scenario allreduce(double bytes, double ratio) {
  Scenario s;
  s.op = Operation::allreduce;
  s.bytes = bytes;
  s.ranks = 4;
  s.ratio.at_bound = ratio;
  return s;
}

void expect_same(const Choice& a, const Choice& b) {
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_DOUBLE_EQ(a.predicted_seconds, b.predicted_seconds);
  EXPECT_DOUBLE_EQ(a.mpi_seconds, b.mpi_seconds);
  EXPECT_DOUBLE_EQ(a.chunk_bytes, b.chunk_bytes);
}

TEST(ChoiceCache, AgreesWithTheModelAcrossMoreScenariosThanItKeeps) {
  const MachineProfile m = machine(40e-6, 8e-9);
  const CodecRates* r = m.rates("szp", Dtype::f32);
  const std::vector<Algorithm> cands = compressed_algorithms(Operation::allreduce);
  for (int pass = 0; pass < 2; ++pass)  // the second pass finds some entries, misses others
    for (double bytes : {64e3, 1 * MiB, 16 * MiB, 64 * MiB})
      for (double ratio : {1.0, 3.0, 12.0}) {
        const Scenario s = allreduce(bytes, ratio);
        SCOPED_TRACE(testing::Message() << bytes << " bytes, ratio " << ratio);
        expect_same(remembered_choice(m, 1, r, s, cands), choose(m, r, s, cands));
      }
}

TEST(ChoiceCache, AnotherProfileFingerprintIsDecidedAfresh) {
  // One profile object changed in place: only the fingerprint tells the two apart.
  MachineProfile m = machine(40e-6, 8e-9);  // 1 Gbit/s: compression pays
  const CodecRates* r = m.rates("szp", Dtype::f32);
  const std::vector<Algorithm> cands = compressed_algorithms(Operation::allreduce);
  const Scenario s = allreduce(64 * MiB, 8);
  const Choice slow = remembered_choice(m, 1, r, s, cands);
  ASSERT_TRUE(is_compressed(slow.algorithm));
  m.network.eager = {0.5e-6, 0.15e-9};  // shared memory: it does not
  m.network.rendezvous = {2e-6, 0.1e-9};
  const Choice fast = remembered_choice(m, 2, r, s, cands);
  EXPECT_FALSE(is_compressed(fast.algorithm));
  expect_same(fast, choose(m, r, s, cands));
}

TEST(ChoiceCache, CandidatesAndScenarioFieldsAreTheKey) {
  const MachineProfile m = machine(40e-6, 8e-9);
  const CodecRates* r = m.rates("szp", Dtype::f32);
  const Scenario s = allreduce(64 * MiB, 8);
  const std::vector<Algorithm> all = compressed_algorithms(Operation::allreduce);
  const std::vector<Algorithm> doc = {Algorithm::DocRing};
  EXPECT_EQ(remembered_choice(m, 3, r, s, all).algorithm, choose(m, r, s, all).algorithm);
  EXPECT_EQ(remembered_choice(m, 3, r, s, doc).algorithm, Algorithm::DocRing);
  Scenario oversubscribed = s;
  oversubscribed.oversubscription = 2;
  expect_same(remembered_choice(m, 3, r, oversubscribed, all), choose(m, r, oversubscribed, all));
  EXPECT_EQ(remembered_choice(m, 3, nullptr, s, {}).algorithm, choose(m, nullptr, s, {}).algorithm);
}

TEST(ChoiceCache, BreakEvenIsRememberedPerProfileAndRatio) {
  MachineProfile m = machine(40e-6, 8e-9);
  const CodecRates* r = m.rates("szp", Dtype::f32);
  for (int pass = 0; pass < 2; ++pass)
    for (double ratio : {2.0, 4.0, 8.0, 16.0, 32.0})  // more than it keeps: some entries go
      EXPECT_EQ(remembered_break_even(m, 5, *r, ratio), break_even_bytes(m, *r, ratio)) << ratio;
  const double slow = remembered_break_even(m, 5, *r, 8);
  m.network.eager = {0.5e-6, 0.15e-9};  // the same object, now shared memory
  m.network.rendezvous = {2e-6, 0.1e-9};
  EXPECT_NE(remembered_break_even(m, 6, *r, 8), slow);
  EXPECT_EQ(remembered_break_even(m, 6, *r, 8), break_even_bytes(m, *r, 8));
}

}  // namespace
