// The predictor picks the order that fits the data: a line is carried by order 1, a parabola
// by order 2, a cubic by order 3, a constant by order 0; the byte-wise codes say so
// directly, and the bit-wise stream shrinks to about 3 bits per element.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iterator>
#include <limits>

#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;

namespace {

template <class T>
std::vector<T> sequence(size_t n, T (*f)(size_t)) {
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = f(i);
  return x;
}

template <class T>
std::vector<std::byte> compress_checked(const char* name, const std::vector<T>& x, double e) {
  const cc::Codec* codec = cc::find_codec(name);
  EXPECT_NE(codec, nullptr);
  auto frame = codec->compress(std::span<const T>(x), cc::ErrorBound::absolute(e));
  EXPECT_TRUE(frame.ok()) << frame.status().to_string();
  std::vector<T> y(x.size());
  EXPECT_TRUE(codec->decompress(*frame, std::span<T>(y)).ok());
  auto err = commpress::testing::check_bound<T>(x, y, e);
  EXPECT_TRUE(err.empty()) << err;
  return *frame;
}

// Histogram of the pred-byte codes (index 4 = verbatim), read straight from the payload:
// frame header, the offset, then one code byte per element.
template <class T>
std::array<size_t, 5> byte_codes(const std::vector<T>& x, double e, size_t skip = 0) {
  auto frame = compress_checked("pred-byte", x, e);
  std::array<size_t, 5> hist{};
  const size_t codes = cc::kFrameHeaderSize + sizeof(T);
  EXPECT_GE(frame.size(), codes + x.size());
  for (size_t i = skip; i < x.size(); ++i) {
    const auto c = std::to_integer<size_t>(frame[codes + i]);
    EXPECT_LE(c, 4u);
    if (c <= 4) ++hist[c];
  }
  return hist;
}

// Integer sequences, exact in either type: the fitting order predicts with zero error and
// every lower order misses by at least 2 > E at every element (no inflection points where
// a lower order would fit by coincidence).
double line(size_t i) { return 7.0 + 3.0 * double(i); }
double parabola(size_t i) { return double(i) * double(i) - 40.0 * double(i); }
double cubic(size_t i) {
  const double t = double(i);
  return t * t * t + 5.0 * t * t - 40.0 * t;
}
float line_f(size_t i) { return float(line(i)); }
float parabola_f(size_t i) { return float(parabola(i)); }
float cubic_f(size_t i) { return float(cubic(i)); }

// The first elements fill the predictor's history (it starts as zeros); after them the
// fitting order carries every element. A near miss during warm-up can leave an inexact value
// in the history, so a few more verbatim values are allowed, but never a wrong order.
constexpr size_t kWarmup = 4;

template <class T>
void expect_order(const std::vector<T>& x, size_t order) {
  auto h = byte_codes(x, 0.5, kWarmup);
  EXPECT_EQ(h[order] + h[4], x.size() - kWarmup) << "a wrong order was chosen";
  EXPECT_LE(h[4], kWarmup) << "too many verbatim values";
}

TEST(PredictiveSelection, ByteWiseCodesNameTheFittingOrder) {
  const size_t n = 20000;
  expect_order(sequence<double>(n, line), 1);
  expect_order(sequence<double>(n, parabola), 2);
  expect_order(sequence<double>(n, cubic), 3);
  auto h = byte_codes(std::vector<double>(n, 42.25), 1e-9);
  EXPECT_EQ(h[0], n);
  // Keep f32 predictions exact: 6 x |value| below 2^24.
  expect_order(sequence<float>(4000, line_f), 1);
  expect_order(sequence<float>(2000, parabola_f), 2);
  expect_order(sequence<float>(120, cubic_f), 3);
}

// Warm-up values are verbatim in the byte-wise form: at most one per history slot.
TEST(PredictiveSelection, ByteWiseWarmupIsShort) {
  auto h = byte_codes(sequence<double>(100, cubic), 0.5);
  EXPECT_LE(h[4], kWarmup);
}

// NaN and Inf inside a smooth run are gaps: they travel verbatim, and the predictor bridges
// them, so the run stays predicted on both sides with no extra verbatim values.
TEST(PredictiveSelection, NonFiniteGapsDoNotBreakARun) {
  auto x = sequence<double>(3000, parabola);
  const size_t gaps[] = {100, 101, 500, 1700, 2999};
  x[100] = std::numeric_limits<double>::quiet_NaN();
  x[101] = std::numeric_limits<double>::infinity();
  x[500] = -std::numeric_limits<double>::infinity();
  x[1700] = std::numeric_limits<double>::quiet_NaN();
  x[2999] = std::numeric_limits<double>::quiet_NaN();
  auto h = byte_codes(x, 0.5, kWarmup);
  EXPECT_EQ(h[4], std::size(gaps));
  EXPECT_EQ(h[2], x.size() - kWarmup - std::size(gaps));
}

// Bit-wise: 3 bits per predicted element; the warm-up and any re-anchoring cost a little.
template <class T>
void expect_near_all_predicted(const std::vector<T>& x, double e) {
  auto frame = compress_checked("pred-bit", x, e);
  const size_t all_predicted = cc::kFrameHeaderSize + sizeof(T) + 2 + (3 * x.size() + 7) / 8;
  EXPECT_GE(frame.size(), all_predicted);
  EXPECT_LE(double(frame.size()), 1.02 * double(all_predicted) + 64)
      << "frame " << frame.size() << " bytes vs all-predicted " << all_predicted;
}

TEST(PredictiveSelection, BitWiseIsNearThreeBitsPerValueOnPolynomials) {
  expect_near_all_predicted(sequence<double>(20000, line), 0.5);
  expect_near_all_predicted(sequence<double>(20000, parabola), 0.5);
  expect_near_all_predicted(sequence<double>(20000, cubic), 0.5);
  expect_near_all_predicted(sequence<float>(2000, parabola_f), 0.5);
  expect_near_all_predicted(std::vector<float>(5000, -3.5f), 1e-6);
}

// Smooth non-integer data: most values are predicted. Predictions come from reconstructed
// values, whose errors (up to E each) compound through the extrapolation, so a verbatim or
// truncated value re-anchors the history every few elements; the thresholds sit just below
// what this deterministic signal achieves.
TEST(PredictiveSelection, SmoothSignalsCompress) {
  std::vector<float> x(50000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(0.001 * double(i)));
  const double raw = double(x.size() * sizeof(float));
  auto byte_frame = compress_checked("pred-byte", x, 1e-4);
  auto bit_frame = compress_checked("pred-bit", x, 1e-4);
  EXPECT_GT(raw / double(byte_frame.size()), 2.0);
  EXPECT_GT(raw / double(bit_frame.size()), 4.5);
}

// Noise far above the bound cannot be predicted: pred-byte stores it verbatim.
TEST(PredictiveSelection, NoiseIsStoredVerbatim) {
  auto x = commpress::testing::make_data<double>(commpress::testing::Shape::gaussian, 5000, 9);
  auto h = byte_codes(x, 1e-6);
  EXPECT_GT(h[4], 4990u);
}

}  // namespace
