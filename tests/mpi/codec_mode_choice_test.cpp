// Auto choosing the codec mode (issue 18; docs/szp-modes.md): with codec "auto" under a lossy
// bound the plan weighs szp (fast, summable) against szp-eh (entropy-coded, run
// decompress-operate-compress) from the link rate, each mode's rates in the profile and each
// mode's sampled ratio. A slow link with a compressible sample takes szp-eh, a faster one
// keeps szp; a profile without szp-eh's rates (one written before the modes were weighed)
// keeps szp; the allreduce that runs the chosen mode reports it, honours its bound and gives
// every rank the same bits.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "comm/profile_io.hpp"
#include "comm/ratio_sample.hpp"
#include "comm/select.hpp"
#include "comm_test_support.hpp"
#include "profile_scope.hpp"
#include "commpress/collective_plan.hpp"

namespace {

using namespace commpress::testing::comm;
namespace model = commpress::model;

// A link of `beta` seconds per byte; szp at its usual speed with its combines, szp-eh five
// times slower and without them (its frames cannot be summed).
model::MachineProfile machine(double beta, bool with_entropy_rates = true) {
  model::MachineProfile m;
  m.origin = "codec_mode_choice_test";
  m.network.eager = {50e-6, beta};
  m.network.rendezvous = {50e-6, beta};
  m.network.switch_bytes = 0;
  m.gamma = 2e-10;
  for (Dtype d : {Dtype::f32, Dtype::f64}) {
    m.codecs.push_back({"szp", d, 3e9, 4e9, 5e9, 4e9, 2e-6, 8});
    if (with_entropy_rates) m.codecs.push_back({"szp-eh", d, 0.6e9, 0.8e9, 0, 0, 5e-6, 12});
  }
  return m;
}

constexpr double k100Mbit = 8e-8, k1Gbit = 8e-9;

// 64 MiB of f32 per rank on 4 ranks, REL 1e-3, szp sampling 8 (6 finer), szp-eh 40 (30).
cc::AgreedCall call_of(double entropy_ratio) {
  cc::AgreedCall c;
  c.operation = model::Operation::allreduce;
  c.ranks = 4;
  c.count = size_t{16} << 20;
  c.dtype = Dtype::f32;
  c.lo = -100;
  c.hi = 100;
  c.ratio_at_bound = 8;
  c.ratio_at_fine = 6;
  c.entropy_ratio_at_bound = entropy_ratio;
  c.entropy_ratio_at_fine = 0.75 * entropy_ratio;
  return c;
}

cc::Options auto_options(const std::string& codec = "auto") {
  cc::Options o;
  o.codec = codec;
  o.bound = ErrorBound::relative(1e-3);
  return o;
}

const cc::CodecModeTime* mode(const cc::CollectivePlan& p, const std::string& codec) {
  for (const cc::CodecModeTime& m : p.modes)
    if (m.codec == codec) return &m;
  return nullptr;
}

TEST(CodecModeChoice, SlowLinkWithCompressibleSampleTakesTheEntropyMode) {
  auto p = cc::plan_collective(call_of(40), machine(k100Mbit), auto_options());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->codec, "szp-eh") << cc::plan_to_text(*p);
  EXPECT_FALSE(commpress::is_homomorphic(p->algorithm)) << cc::plan_to_text(*p);
  const cc::CodecModeTime* fast = mode(*p, "szp");
  const cc::CodecModeTime* entropy = mode(*p, "szp-eh");
  ASSERT_TRUE(fast && entropy) << cc::plan_to_text(*p);
  EXPECT_GT(entropy->predicted_seconds, 0.0);
  EXPECT_LT(entropy->predicted_seconds, fast->predicted_seconds);
  EXPECT_EQ(p->predicted_seconds, entropy->predicted_seconds);
  EXPECT_GT(p->guaranteed_abs_bound, 0.0);
  EXPECT_LE(p->guaranteed_abs_bound, p->requested_abs_bound);
  EXPECT_NE(cc::plan_to_text(*p).find("mode szp-eh: "), std::string::npos);
  EXPECT_NE(cc::plan_to_json(*p).find("\"modes\": [{\"codec\": \"szp\""), std::string::npos);
}

TEST(CodecModeChoice, FasterLinkKeepsTheFastMode) {
  auto p = cc::plan_collective(call_of(40), machine(k1Gbit), auto_options());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->codec, "szp") << cc::plan_to_text(*p);
  ASSERT_NE(mode(*p, "szp-eh"), nullptr);
  EXPECT_GT(mode(*p, "szp-eh")->predicted_seconds, mode(*p, "szp")->predicted_seconds);
}

TEST(CodecModeChoice, NothingSampledOrACodecGivenKeepsTheFastMode) {
  auto unsampled = cc::plan_collective(call_of(0), machine(k100Mbit), auto_options());
  ASSERT_TRUE(unsampled.ok()) << unsampled.status().to_string();
  EXPECT_EQ(unsampled->codec, "szp");
  ASSERT_NE(mode(*unsampled, "szp-eh"), nullptr);
  EXPECT_EQ(mode(*unsampled, "szp-eh")->algorithm, cc::Algorithm::Auto);  // not weighed
  auto given = cc::plan_collective(call_of(40), machine(k100Mbit), auto_options("szp"));
  ASSERT_TRUE(given.ok()) << given.status().to_string();
  EXPECT_EQ(given->codec, "szp");
  EXPECT_TRUE(given->modes.empty());
}

TEST(CodecModeChoice, ProfileWithoutEntropyRatesLoadsAndKeepsTheFastMode) {
  // A profile file as written before the modes were weighed: szp's rates only.
  auto old = cc::profile_from_json(cc::profile_to_json(machine(k100Mbit, false)));
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  EXPECT_EQ(old->rates("szp-eh", Dtype::f32), nullptr);
  auto p = cc::plan_collective(call_of(40), *old, auto_options());
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->codec, "szp") << cc::plan_to_text(*p);
  EXPECT_NE(p->algorithm, cc::Algorithm::Mpi);
  ASSERT_NE(mode(*p, "szp-eh"), nullptr);
  EXPECT_EQ(mode(*p, "szp-eh")->algorithm, cc::Algorithm::Auto);  // not weighed
}

// Levels with rare jumps (one value in 1000 on average): the entropy mode's sparse chunks code
// a jump and not the values between, where szp pays a header byte per 32 values; a partial
// sum of such arrays (what a reduction codes, and the entropy mode's sample) is one too.
std::vector<float> walk(size_t n, int rank) {
  std::mt19937 gen(200 + unsigned(rank));
  std::normal_distribution<float> jump(0.0f, 100.0f);
  std::uniform_int_distribution<int> when(0, 999);
  std::vector<float> v(n);
  float x = 0;
  for (float& e : v) e = x += when(gen) == 0 ? jump(gen) : 0.0f;
  return v;
}

constexpr size_t kCount = size_t{1} << 20;  // 4 MiB of f32

// The allreduce the plan describes: `codec` ran on every rank, within the bound, same bits.
void expect_runs(double beta, const std::string& codec) {
  ProfileScope scope(machine(beta));
  const cc::Options o = auto_options();
  const auto in = walk(kCount, world_rank());
  auto plan = cc::plan_allreduce(in.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->codec, codec) << cc::plan_to_text(*plan);
  std::vector<float> out(kCount);
  auto r = cc::allreduce(in.data(), out.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD, o);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->codec, codec);
  EXPECT_EQ(r->algorithm, plan->algorithm);
  EXPECT_TRUE(same_everywhere(double(r->algorithm)));
  EXPECT_GT(r->guaranteed_abs_bound, 0.0);
  std::vector<double> exact(kCount);
  std::vector<double> wide(in.begin(), in.end());
  MPI_Allreduce(wide.data(), exact.data(), int(kCount), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0;
  for (size_t i = 0; i < kCount; ++i) worst = std::max(worst, std::abs(double(out[i]) - exact[i]));
  EXPECT_LE(worst, r->guaranteed_abs_bound) << codec;
  Bytes bits(kCount * sizeof(float));
  std::memcpy(bits.data(), out.data(), bits.size());
  EXPECT_TRUE(same_bytes_everywhere(bits));
}

// The entropy mode's sample for a reduction is of partial sums (pieces summed two by two):
// on a random walk at REL 1e-2 their ratio is clearly below one rank's values' (below it at
// the finer bound too), for f32 and f64, many pieces or one (its halves); szp's hardly moves.
TEST(CodecModeChoice, PartialSumsSampleBelowOneRanksValues) {
  const commpress::codec::Codec* eh = commpress::codec::find_codec("szp-eh");
  const commpress::codec::Codec* szp = commpress::codec::find_codec("szp");
  ASSERT_TRUE(eh && szp);
  for (size_t n : {size_t{1} << 21, size_t{6000}}) {
    std::mt19937 gen(7);
    std::normal_distribution<double> step(0.0, 1.0);
    std::vector<float> f(n);
    std::vector<double> d(n);
    double x = 0;
    for (size_t i = 0; i < n; ++i) d[i] = f[i] = float(x += step(gen));
    const ErrorBound b = ErrorBound::relative(1e-2);
    for (Dtype dt : {Dtype::f32, Dtype::f64}) {
      const void* data = dt == Dtype::f32 ? static_cast<const void*>(f.data()) : d.data();
      const auto one = commpress::comm::sample_ratio(*eh, data, n, dt, b, 4);
      const auto sums = commpress::comm::sample_ratio(*eh, data, n, dt, b, 4, true);
      ASSERT_TRUE(one.sampled && sums.sampled) << n;
      EXPECT_GT(one.at_bound, 1.2 * sums.at_bound) << n << " values";
      EXPECT_LT(sums.at_fine, one.at_fine) << n << " values";  // a denser bound: less apart
      const auto fast = commpress::comm::sample_ratio(*szp, data, n, dt, b, 4);
      const auto fast_sums = commpress::comm::sample_ratio(*szp, data, n, dt, b, 4, true);
      EXPECT_LT(fast.at_bound, 1.3 * fast_sums.at_bound) << n << " values";
    }
  }
}

TEST(CodecModeChoice, AllreduceRunsAndReportsTheChosenMode) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  expect_runs(8e-7, "szp-eh");  // 10 Mbit/s: the entropy mode's ratio pays for its codec
  expect_runs(k1Gbit, "szp");
}

}  // namespace
