// The lines the zero-configuration probe fits under each side of its ping-pong
// (comm/probe/floor_line.hpp): exact on points on a line, unmoved by a size whose round trips
// all waited for a core (where a least-squares line through the same points moves), and for
// the large sizes the sustained rate of a link whose first bytes go faster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "comm/probe/floor_line.hpp"
#include "commpress/model.hpp"

namespace {

using commpress::model::Sample;
using commpress::comm::probe::floor_line;
using commpress::comm::probe::sustained_line;

constexpr double kAlpha = 30e-6, kBeta = 8e-9;  // a 1 Gbit/s-like link

std::vector<Sample> on_line(std::vector<double> sizes) {
  std::vector<Sample> pts;
  for (double m : sizes) pts.push_back({m, kAlpha + kBeta * m});
  return pts;
}

TEST(FloorLine, PointsOnALine) {
  for (auto fit : {floor_line, sustained_line}) {
    const auto line = fit(on_line({65536, 262144, 1048576}));
    EXPECT_NEAR(line.alpha, kAlpha, 1e-3 * kAlpha);
    EXPECT_NEAR(line.beta, kBeta, 1e-6 * kBeta);
  }
}

TEST(FloorLine, OneWaitedSizeDoesNotMoveIt) {
  // Each large size in turn waited 3 ms for a core.
  for (size_t waited = 0; waited < 3; ++waited) {
    auto pts = on_line({65536, 262144, 1048576});
    pts[waited].seconds += 3e-3;
    for (auto fit : {floor_line, sustained_line}) {
      const auto line = fit(pts);
      EXPECT_NEAR(line.beta, kBeta, 1e-6 * kBeta) << waited;
      EXPECT_NEAR(line.alpha, kAlpha, 1e-3 * kAlpha) << waited;
    }
    // What the least-squares line does with the same points (the probe's fit before).
    const auto ls = commpress::model::fit_line(pts);
    EXPECT_FALSE(std::abs(ls.beta - kBeta) < 0.05 * kBeta &&
                 std::abs(ls.alpha - kAlpha) < 0.05 * kAlpha) << waited;
  }
  // Shared memory (1 us, 20 GB/s): a waited 1 MiB size, milliseconds on microseconds.
  std::vector<Sample> shm;
  for (double m : {65536.0, 262144.0, 1048576.0}) shm.push_back({m, 1e-6 + 5e-11 * m});
  shm.back().seconds += 8e-3;
  EXPECT_NEAR(sustained_line(shm).beta, 5e-11, 1e-6 * 5e-11);
  // The small sizes: a waited 1 KiB point leaves the latency at the 8-byte one's.
  auto small = on_line({8, 1024, 16384});
  small[1].seconds += 2e-3;
  EXPECT_NEAR(floor_line(small).alpha, kAlpha, 1e-3 * kAlpha);
}

TEST(FloorLine, TheLargeSizesSustainedRate) {
  // A token bucket of 48 KiB: that much leaves at 10 GB/s, the rest at the link's rate. The
  // sustained line then meets zero bytes below zero seconds, and the nearest line under the
  // points with a latency >= 0 is flatter than the link (under scripts/netsim at 1 Gbit/s,
  // 4.9 ns/B where the link takes 8).
  std::vector<Sample> pts;
  for (double m : {65536.0, 262144.0, 1048576.0}) {
    const double fast = std::min(m, 49152.0);
    pts.push_back({m, kAlpha + fast * 1e-10 + (m - fast) * kBeta});
  }
  EXPECT_NEAR(sustained_line(pts).beta, kBeta, 1e-6 * kBeta);
  EXPECT_LT(floor_line(pts).beta, 0.99 * kBeta);  // why the large sizes take the other
}

TEST(FloorLine, NeverNegative) {
  // Larger messages faster than smaller ones (a token bucket, caches): a flat line at the
  // fastest, not a negative slope.
  const auto down = floor_line(std::vector<Sample>{{8, 50e-6}, {1024, 40e-6}, {16384, 45e-6}});
  EXPECT_GE(down.beta, 0);
  EXPECT_GE(down.alpha, 0);
  EXPECT_LE(down.alpha + down.beta * 1024, 40e-6 * (1 + 1e-9));
  // Latency below zero by the line through the points: through the origin instead.
  const auto steep = floor_line(std::vector<Sample>{{1e5, 1e-4}, {1e6, 2e-3}});
  EXPECT_GE(steep.alpha, 0);
  EXPECT_LE(steep.alpha + steep.beta * 1e5, 1e-4 * (1 + 1e-9));
  EXPECT_EQ(floor_line(std::vector<Sample>{}).beta, 0);
  // Large sizes that all waited alike (times that barely rise, or fall): still a cost per
  // byte under every point, never a flat line (large messages free).
  for (double top : {2.1e-3, 1.8e-3}) {
    const std::vector<Sample> waited{{65536, 2.0e-3}, {262144, 1.9e-3}, {1048576, top}};
    const auto line = sustained_line(waited);
    EXPECT_GT(line.beta, 0) << top;
    for (const Sample& s : waited) EXPECT_LE(line.alpha + line.beta * s.bytes, s.seconds * (1 + 1e-9));
  }
}

}  // namespace
