// Auto's ratio estimate against the ratio the call then reaches: a REL bound is relative to
// the whole array's range, so the estimate must see that range, not only its few pieces'.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "comm/ratio_sample.hpp"
#include "support/datasets.hpp"

namespace {

using commpress::codec::Dtype;
using commpress::codec::ErrorBound;

// A random walk's range grows with the square root of its length: the middle 4096 values of
// 131072 span a fraction of the whole, and a bound resolved on them alone is that much
// tighter (at this size the estimate was 0.67 of the ratio reached).
TEST(RatioSample, RelBoundSeesTheWholeArraysRange) {
  const commpress::codec::Codec* szp = commpress::codec::find_codec("szp");
  ASSERT_TRUE(szp);
  for (size_t n : {size_t{131072}, size_t{1} << 20}) {
    const auto x = commpress::testing::make_data<double>(commpress::testing::Shape::random_walk,
                                                         n, 3);
    const ErrorBound b = ErrorBound::relative(1e-4);
    std::vector<std::byte> frame;
    ASSERT_TRUE(szp->compress(x.data(), n, Dtype::f64, b, frame).ok());
    const double reached = double(n * sizeof(double)) / double(frame.size());
    const auto s = commpress::comm::sample_ratio(*szp, x.data(), n, Dtype::f64, b);
    ASSERT_TRUE(s.sampled);
    EXPECT_GT(s.at_bound, 0.85 * reached) << n << " values";
    EXPECT_LT(s.at_bound, 1.15 * reached) << n << " values";
  }
}

// The probes never widen the range beyond the array's: on a constant-free ramp the estimate
// stays at or below the ratio the whole array reaches (probes include both ends here).
TEST(RatioSample, ProbesStayWithinTheArraysRange) {
  const commpress::codec::Codec* szp = commpress::codec::find_codec("szp");
  ASSERT_TRUE(szp);
  const size_t n = 100000;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = float(std::sqrt(double(i)));
  const ErrorBound b = ErrorBound::relative(1e-3);
  std::vector<std::byte> frame;
  ASSERT_TRUE(szp->compress(x.data(), n, Dtype::f32, b, frame).ok());
  const auto s = commpress::comm::sample_ratio(*szp, x.data(), n, Dtype::f32, b);
  ASSERT_TRUE(s.sampled);
  EXPECT_LE(s.at_bound, 1.15 * double(n * sizeof(float)) / double(frame.size()));
}

}  // namespace
