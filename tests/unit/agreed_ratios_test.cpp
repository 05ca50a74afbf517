// The sampled ratios re-priced at the range the ranks agree on: where each rank holds one
// part of the data (an allgather's blocks), a REL bound is relative to all parts' range, which
// no rank knows when it samples; the agreement carries each rank's bits per value at unit
// range so the ratio can be priced at the agreed range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "comm/ratio_sample.hpp"
#include "comm/selection/agreed_ratios.hpp"
#include "support/datasets.hpp"

namespace {

using commpress::codec::Dtype;
using commpress::codec::ErrorBound;
namespace cd = commpress::comm::detail;
namespace slot = cd::selection_slot;

constexpr size_t kBlock = 16384;

// Blocks of one random walk, each lifted by `lift` times its index so that the whole spans
// far more than any block.
std::vector<double> blocks(int parts, double lift) {
  auto x = commpress::testing::make_data<double>(commpress::testing::Shape::random_walk,
                                                 kBlock * size_t(parts), 11);
  for (size_t i = 0; i < x.size(); ++i) x[i] += lift * double(i / kBlock);
  return x;
}

// Each part's contribution, reduced by minimum as the agreement does.
std::vector<double> agreed_over(const std::vector<double>& x, int parts, const ErrorBound& b) {
  const auto* szp = commpress::codec::find_codec("szp");
  std::vector<double> agreed = cd::no_selection_mins();
  for (int r = 0; r < parts; ++r) {
    const auto s =
        commpress::comm::sample_ratio(*szp, x.data() + size_t(r) * kBlock, kBlock, Dtype::f64, b);
    EXPECT_TRUE(s.sampled);
    EXPECT_EQ(s.range > 0, b.mode == commpress::codec::BoundMode::rel);
    const auto mine = cd::selection_mins({s.at_bound, 0, 0, 0, s.range, sizeof(double)}, 1);
    for (size_t i = 0; i < agreed.size(); ++i) agreed[i] = std::min(agreed[i], mine[i]);
  }
  return agreed;
}

// The worst part's ratio when every part is compressed at the bound the call resolves.
double reached(const std::vector<double>& x, int parts, double abs) {
  const auto* szp = commpress::codec::find_codec("szp");
  double worst = 1e300;
  std::vector<std::byte> frame;
  for (int r = 0; r < parts; ++r) {
    EXPECT_TRUE(szp->compress(x.data() + size_t(r) * kBlock, kBlock, Dtype::f64,
                              ErrorBound::absolute(abs), frame)
                    .ok());
    worst = std::min(worst, double(kBlock * sizeof(double)) / double(frame.size()));
  }
  return worst;
}

double range_of(const std::vector<double>& x) {
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  return *hi - *lo;
}

TEST(AgreedRatios, RepricedAtTheAgreedRangeMatchTheBlocksReached) {
  const ErrorBound b = ErrorBound::relative(1e-4);
  for (int parts : {4, 8}) {
    const auto x = blocks(parts, 200.0);
    const double range = range_of(x);
    auto agreed = agreed_over(x, parts, b);
    const double sampled = agreed[slot::at_bound];
    cd::at_agreed_range(agreed, range, sizeof(double));
    const double want = reached(x, parts, 1e-4 * range);
    // Without the re-pricing the estimate is far below (the premise of the test).
    EXPECT_LT(sampled, 0.85 * want) << parts << " parts";
    EXPECT_GT(agreed[slot::at_bound], 0.9 * want) << parts << " parts";
    EXPECT_LT(agreed[slot::at_bound], 1.1 * want) << parts << " parts";
  }
}

TEST(AgreedRatios, TrustedToHalfTheBitsAndNeverLower) {
  const ErrorBound b = ErrorBound::relative(1e-4);
  const auto x = blocks(4, 0);
  auto agreed = agreed_over(x, 4, b);
  const double sampled = agreed[slot::at_bound];
  auto wide = agreed;
  cd::at_agreed_range(wide, 1e12 * range_of(x), sizeof(double));  // absurdly wide
  EXPECT_DOUBLE_EQ(wide[slot::at_bound], 2 * sampled);
  auto narrow = agreed;
  cd::at_agreed_range(narrow, 1e-3 * range_of(x), sizeof(double));  // narrower than sampled
  EXPECT_DOUBLE_EQ(narrow[slot::at_bound], sampled);
  auto none = agreed;
  cd::at_agreed_range(none, 0, sizeof(double));  // no agreed range
  EXPECT_DOUBLE_EQ(none[slot::at_bound], sampled);
}

// An ABS bound does not depend on the range: nothing to re-price.
TEST(AgreedRatios, AbsBoundsStayAsSampled) {
  const auto x = blocks(4, 200.0);
  auto agreed = agreed_over(x, 4, ErrorBound::absolute(0.01));
  const double sampled = agreed[slot::at_bound];
  EXPECT_TRUE(std::isinf(agreed[slot::unit_bits]));
  cd::at_agreed_range(agreed, range_of(x), sizeof(double));
  EXPECT_DOUBLE_EQ(agreed[slot::at_bound], sampled);
}

}  // namespace
