// Fitting alpha and beta to a ping-pong sweep, with and without a known protocol switch.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "commpress/model.hpp"

namespace {

using namespace commpress::model;

// A sweep 8 B .. 64 MiB over a link with a knee after 4 KiB, with +-2% noise.
std::vector<Sample> sweep(const Link& truth, double noise, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
  std::vector<Sample> pts;
  for (double m = 8; m <= 64.0 * (1 << 20); m *= 2) pts.push_back({m, truth.time(m) * jitter(gen)});
  return pts;
}

Link truth() {
  Link l;
  l.eager = {0.4e-6, 0.25e-9};
  l.rendezvous = {2.5e-6, 0.1e-9};
  l.switch_bytes = 4097;
  return l;
}

TEST(ModelFit, ExactLineIsRecovered) {
  std::vector<Sample> pts;
  for (double m : {10.0, 100.0, 1000.0, 1e4, 1e5}) pts.push_back({m, 3e-6 + m * 2e-9});
  LinkParams lp = fit_line(pts);
  EXPECT_NEAR(lp.alpha, 3e-6, 1e-12);
  EXPECT_NEAR(lp.beta, 2e-9, 1e-16);
}

TEST(ModelFit, NegativeInterceptsAreClampedKeepingTheSlope) {
  // t = 2e-10 * b - 1e-7: a link whose first bytes go free (a shaper's burst); large
  // messages pay the slope, so it must survive the clamp.
  std::vector<Sample> pts = {{1000, 1e-7}, {2000, 3e-7}, {4000, 7e-7}};
  LinkParams lp = fit_line(pts);
  EXPECT_EQ(lp.alpha, 0);
  EXPECT_NEAR(lp.beta, 2e-10, 1e-18);
}

TEST(ModelFit, KneeIsFoundAndBothLinesRecovered) {
  const Link t = truth();
  Link fit = fit_link(sweep(t, 0.02, 7));
  EXPECT_EQ(fit.switch_bytes, 4097);
  EXPECT_NEAR(fit.eager.alpha, t.eager.alpha, 0.1 * t.eager.alpha);
  EXPECT_NEAR(fit.rendezvous.beta, t.rendezvous.beta, 0.05 * t.rendezvous.beta);
  EXPECT_NEAR(fit.rendezvous.alpha, t.rendezvous.alpha, 0.5 * t.rendezvous.alpha);
  for (double m : {64.0, 4096.0, 1e5, 1e7}) EXPECT_NEAR(fit.time(m), t.time(m), 0.06 * t.time(m)) << m;
}

TEST(ModelFit, GivenSwitchIsUsed) {
  const Link t = truth();
  Link fit = fit_link(sweep(t, 0.0, 1), 4097);
  EXPECT_EQ(fit.switch_bytes, 4097);
  EXPECT_NEAR(fit.eager.beta, t.eager.beta, 1e-3 * t.eager.beta);
  EXPECT_NEAR(fit.rendezvous.alpha, t.rendezvous.alpha, 1e-3 * t.rendezvous.alpha);
}

TEST(ModelFit, RendezvousHasAtLeastTheEagerLatency) {
  // Transfers of milliseconds hide microseconds of latency: a rendezvous line through the
  // origin (as a shaped link's sweep fits) still pays the handshake's eager latency.
  Link t = truth();
  t.rendezvous.alpha = 0;
  Link fit = fit_link(sweep(t, 0.0, 1), 4097);
  EXPECT_NEAR(fit.rendezvous.alpha, t.eager.alpha, 1e-3 * t.eager.alpha);
  EXPECT_NEAR(fit.rendezvous.beta, t.rendezvous.beta, 1e-3 * t.rendezvous.beta);
}

TEST(ModelFit, StraightLineHasNoKnee) {
  Link one;
  one.eager = one.rendezvous = {50e-6, 8e-9};
  one.switch_bytes = 0;
  Link fit = fit_link(sweep(one, 0.01, 3));
  for (double m : {8.0, 1e4, 1e7}) EXPECT_NEAR(fit.time(m), one.time(m), 0.03 * one.time(m)) << m;
}

TEST(ModelFit, MeasuredTimesAreInterpolatedOnEachSideOfTheSwitch) {
  // A simulated network's per-size steps (SMPI's factors: 16 KiB pays more latency than
  // 8 KiB) that one line a side misses: between two measured sizes of one protocol the time
  // is interpolated, across the switch and beyond the measured sizes the lines hold.
  Link l;
  l.eager = {35e-6, 2.3e-9};
  l.rendezvous = {230e-6, 0.85e-9};
  l.switch_bytes = 65536;
  l.measured = {{8192, 58e-6}, {16384, 89e-6}, {32768, 107e-6}, {131072, 342e-6}, {262144, 455e-6}};
  EXPECT_DOUBLE_EQ(l.time(16384), 89e-6);
  EXPECT_DOUBLE_EQ(l.time(12288), (58e-6 + 89e-6) / 2);
  EXPECT_DOUBLE_EQ(l.time(49152), 35e-6 + 49152 * 2.3e-9);      // between 32 KiB and 128 KiB
  EXPECT_DOUBLE_EQ(l.time(196608), (342e-6 + 455e-6) / 2);
  EXPECT_DOUBLE_EQ(l.time(1 << 20), 230e-6 + (1 << 20) * 0.85e-9);  // beyond the last
  EXPECT_DOUBLE_EQ(l.time(1024), 35e-6 + 1024 * 2.3e-9);            // below the first
  EXPECT_DOUBLE_EQ(l.time(262144), 455e-6);
  // A shared link adds the other flows' bytes at the sustained rate to either.
  l.queued_beta = 3 * 0.85e-9;
  EXPECT_DOUBLE_EQ(l.time(16384), 89e-6 + 16384 * 3 * 0.85e-9);
  EXPECT_DOUBLE_EQ(l.time(1 << 20), 230e-6 + (1 << 20) * 4 * 0.85e-9);
}

// Messages of one size sharing a link wait for each other's bytes at the rate that size
// flows at: the measured slope inside its size class, which a step between two sizes does
// not steepen. On SMPI's 10 Gbit/s cluster 8 frames of 41528 bytes leaving one node at once
// took 469 us, where the rendezvous rate made 379 (bench/results/scale.md, 2026-11-29 (late)).
TEST(Link, SharedMessagesQueueAtTheirSizeClassRate) {
  Link l;
  l.eager = {35e-6, 2.3e-9};
  l.rendezvous = {232e-6, 0.85e-9};
  l.switch_bytes = 65536;
  // 16 and 32 KiB in one class (1.146 ns/B), 64 KiB one protocol step above (the latency jump
  // steepens 32 -> 64 KiB), 128 and 256 KiB at the large-message rate.
  l.measured = {{8192, 58e-6},    {16384, 88.58e-6}, {32768, 107.36e-6},
                {65468, 288.6e-6}, {131072, 344.4e-6}, {262144, 455.8e-6}};
  const double eager_class = (107.36e-6 - 88.58e-6) / 16384;
  EXPECT_DOUBLE_EQ(l.sharing_beta(41528), eager_class);
  EXPECT_DOUBLE_EQ(l.sharing_beta(20000), eager_class);
  EXPECT_DOUBLE_EQ(l.sharing_beta(131072), (455.8e-6 - 344.4e-6) / 131072);
  EXPECT_DOUBLE_EQ(l.sharing_beta(100000), 0.85e-9);  // its neighbours across the switch: the line
  EXPECT_DOUBLE_EQ(l.sharing_beta(1 << 22), (455.8e-6 - 344.4e-6) / 131072);  // past the last
  Link alone = l;
  alone.measured.clear();  // no measured sizes: the rendezvous line's rate, at every size
  EXPECT_DOUBLE_EQ(alone.sharing_beta(41528), 0.85e-9);
  l.sharers = 8;
  EXPECT_DOUBLE_EQ(l.time(41528), l.measured[2].seconds +
                                      (288.6e-6 - 107.36e-6) * (41528 - 32768) / (65468 - 32768) +
                                      7 * 41528 * eager_class);
}

}  // namespace
