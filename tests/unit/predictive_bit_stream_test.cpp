// The building blocks of the predictive codecs in isolation: the bounded bit stream, the
// bound-driven mantissa rounding, and the exact bound test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "codec/lossy/predictive/bit_stream.hpp"
#include "codec/lossy/predictive/exact_bound.hpp"
#include "codec/lossy/predictive/mantissa_truncation.hpp"

namespace cp = commpress::codec::predictive;

namespace {

TEST(PredictiveBitStream, RandomFieldsRoundTrip) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t fields = rng() % 500;
    std::vector<std::pair<uint64_t, unsigned>> written;
    size_t total_bits = 0;
    for (size_t i = 0; i < fields; ++i) {
      const unsigned w = unsigned(rng() % 65);
      written.push_back({rng() & cp::low_bits(w), w});
      total_bits += w;
    }
    std::vector<std::byte> buf((total_bits + 7) / 8);
    cp::BitWriter out(buf);
    for (auto [v, w] : written) out.put_wide(v, w);
    auto size = out.finish();
    ASSERT_TRUE(size.ok()) << size.status().to_string();
    ASSERT_EQ(*size, buf.size());
    cp::BitReader in(buf);
    for (size_t i = 0; i < written.size(); ++i)
      ASSERT_EQ(in.get_wide(written[i].second), written[i].first) << "field " << i;
    EXPECT_TRUE(in.finish().ok());
  }
}

TEST(PredictiveBitStream, WriterReportsOverflow) {
  std::vector<std::byte> buf(3);
  cp::BitWriter out(buf);
  out.put(0xABCD, 16);
  out.put(0x1FF, 9);  // 25 bits: one more byte than fits
  auto size = out.finish();
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), commpress::ErrorCode::capacity);
}

TEST(PredictiveBitStream, ReaderReportsTruncationAndUntidyEnds) {
  std::vector<std::byte> buf(4);
  cp::BitWriter out(buf);
  out.put(0x12345, 20);
  ASSERT_EQ(*out.finish(), 3u);

  cp::BitReader exact(std::span<const std::byte>(buf).first(3));
  EXPECT_EQ(exact.get(20), 0x12345u);
  EXPECT_TRUE(exact.finish().ok());

  cp::BitReader short_read(std::span<const std::byte>(buf).first(2));
  EXPECT_EQ(short_read.get(20), 0u);
  EXPECT_FALSE(short_read.ok());
  EXPECT_EQ(short_read.finish().code(), commpress::ErrorCode::truncated);

  cp::BitReader trailing(buf);  // one byte more than written
  trailing.get(20);
  EXPECT_EQ(trailing.finish().code(), commpress::ErrorCode::corrupt_frame);

  auto dirty = buf;
  dirty[2] |= std::byte{0x80};  // a padding bit set
  cp::BitReader padded(std::span<const std::byte>(dirty).first(3));
  padded.get(20);
  EXPECT_EQ(padded.finish().code(), commpress::ErrorCode::corrupt_frame);
}

TEST(PredictiveBitStream, BoundExponent) {
  EXPECT_EQ(cp::bound_exponent(1e-3), 10);  // 2^-10 <= 1e-3 < 2^-9
  EXPECT_EQ(cp::bound_exponent(0.5), 1);
  EXPECT_EQ(cp::bound_exponent(1.0), 0);
  EXPECT_EQ(cp::bound_exponent(3.0), -1);
  EXPECT_EQ(cp::bound_exponent(std::numeric_limits<double>::max()), cp::kMinBoundExponent);
  EXPECT_EQ(cp::bound_exponent(std::numeric_limits<double>::denorm_min()), cp::kMaxBoundExponent);
}

// Rounding to the bound's grid moves a value by at most 2^(-n-1) <= E/2, and the stored
// fields rebuild it bit for bit.
template <class T>
void truncation_error_is_half_the_grid() {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> mant(0.0, 1.0);
  std::uniform_int_distribution<int> exp(-40, 40), nexp(-20, 60);
  for (int trial = 0; trial < 200000; ++trial) {
    const T d = T(std::ldexp(mant(rng), exp(rng)));
    const int n = nexp(rng);
    cp::MantissaTruncation<T> trunc(n);
    const auto t = trunc.truncate(d);
    ASSERT_TRUE(t.ok);
    ASSERT_EQ(t.bits, trunc.kept_bits(t.exponent_field));
    ASSERT_EQ(t.kept >> t.bits, 0u);
    const T r = cp::MantissaTruncation<T>::rebuild(t.exponent_field, t.kept, t.bits);
    // Exact in long double for both types' ranges here.
    const long double err = std::fabs((long double)d - (long double)r);
    ASSERT_LE(err, std::ldexp((long double)1, -n - 1)) << "d=" << d << " n=" << n;
  }
  // On-grid values are kept exactly; zero stays zero.
  cp::MantissaTruncation<T> half(1);
  for (T v : {T(0), T(1), T(2.5), T(1000), T(12345.5)}) {
    const auto t = half.truncate(v);
    EXPECT_EQ(cp::MantissaTruncation<T>::rebuild(t.exponent_field, t.kept, t.bits), v);
  }
  // Rounding up across a binade carries into the exponent.
  const T below_two = std::nextafter(T(2), T(0));
  const auto t = half.truncate(below_two);
  EXPECT_EQ(cp::MantissaTruncation<T>::rebuild(t.exponent_field, t.kept, t.bits), T(2));
  // Rounding the largest finite value up overflows: reported, never turned into Inf.
  EXPECT_FALSE(cp::MantissaTruncation<T>(cp::kMinBoundExponent).truncate(std::numeric_limits<T>::max()).ok);
}

TEST(PredictiveBitStream, TruncationErrorIsHalfTheGridF32) { truncation_error_is_half_the_grid<float>(); }
TEST(PredictiveBitStream, TruncationErrorIsHalfTheGridF64) { truncation_error_is_half_the_grid<double>(); }

TEST(PredictiveBitStream, WithinBoundIsExact) {
  const double tiny = std::ldexp(1.0, -60);
  // 1 - (-2^-60) rounds to exactly 1 but exceeds the bound 1.
  EXPECT_FALSE(cp::within_bound(1.0, -tiny, 1.0));
  EXPECT_TRUE(cp::within_bound(1.0, tiny, 1.0));
  EXPECT_FALSE(cp::within_bound(-tiny, 1.0, 1.0));
  EXPECT_TRUE(cp::within_bound(tiny, 1.0, 1.0));
  EXPECT_TRUE(cp::within_bound(3.0, 2.0, 1.0));
  EXPECT_FALSE(cp::within_bound(3.0, 2.0, std::nextafter(1.0, 0.0)));
  EXPECT_FALSE(cp::within_bound(1.0, std::numeric_limits<double>::quiet_NaN(), 1e300));
  EXPECT_FALSE(cp::within_bound(std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::max()));
}

}  // namespace
