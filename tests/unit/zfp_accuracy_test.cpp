// The "zfp" codec keeps |x - x'| <= bound for every element, even where zfp's accuracy mode
// alone would not (huge ranges inside a block, NaN, Inf), through its exception list.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/guarded_buffer.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace ct = commpress::testing;
using commpress::ErrorCode;
using ct::Shape;

namespace {

// Payload layout from docs/format/zfp.md.
struct Layout {
  int mode = -1;
  uint64_t stream_bytes = 0;
  uint64_t exceptions = 0;
  size_t count_at = 0;
};

Layout parse(const std::vector<std::byte>& p) {
  Layout l;
  if (p.size() < 8) return l;
  l.mode = std::to_integer<int>(p[0]);
  if (l.mode != 0 || p.size() < 24) return l;
  l.stream_bytes = commpress::core::load_le<uint64_t>(p.data() + 8);
  l.count_at = 16 + l.stream_bytes;
  if (l.count_at + 8 <= p.size()) l.exceptions = commpress::core::load_le<uint64_t>(p.data() + l.count_at);
  return l;
}

const cc::Codec& zfp() {
  const cc::Codec* c = cc::find_codec("zfp");
  if (!c) throw std::runtime_error("codec zfp is not registered");
  return *c;
}

// Compresses, decompresses and checks the bound; returns the opened frame.
template <class T>
ct::OpenFrame roundtrip(const std::vector<T>& x, double bound) {
  auto frame = zfp().compress(std::span<const T>(x), cc::ErrorBound::absolute(bound));
  EXPECT_TRUE(frame.ok()) << frame.status().to_string();
  if (!frame.ok()) return {};
  EXPECT_LE(frame->size(), zfp().compress_bound(x.size(), cc::dtype_of<T>()));
  std::vector<T> y(x.size());
  auto st = zfp().decompress(*frame, std::span<T>(y));
  EXPECT_TRUE(st.ok()) << st.to_string();
  auto err = ct::check_bound<T>(x, y, bound);
  EXPECT_TRUE(err.empty()) << err;
  return ct::open_frame(*frame);
}

template <class T>
T bits_nan(uint64_t payload) {
  if constexpr (sizeof(T) == 8) {
    uint64_t b = 0x7FF0000000000000ull | payload;
    return std::bit_cast<T>(b);
  } else {
    uint32_t b = 0x7F800000u | uint32_t(payload & 0x7FFFFF);
    return std::bit_cast<T>(b);
  }
}

// Mostly smooth data (so the zfp path wins) with blocks that mix magnitudes far apart: zfp
// quantizes each block relative to its largest value and loses the small ones.
template <class T>
void huge_range_case() {
  const T big = sizeof(T) == 8 ? T(1e300) : T(3e38f), tiny = sizeof(T) == 8 ? T(1e-300) : T(1e-38f);
  std::vector<T> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(std::sin(i * 0.01));
  for (size_t b = 40; b < 60; ++b) {
    x[4 * b] = big;
    x[4 * b + 1] = tiny;
    x[4 * b + 2] = T(-3.5);
    x[4 * b + 3] = -big / 10;
  }
  auto f = roundtrip(x, sizeof(T) == 8 ? 1e-9 : 1e-4);
  Layout l = parse(f.payload);
  EXPECT_EQ(l.mode, 0);
  EXPECT_GT(l.exceptions, 0u);
  EXPECT_LE(l.exceptions, 80u);
}

template <class T>
void nonfinite_case() {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(std::sin(i * 0.05) * 10);
  // Every position inside a block, plus NaNs with payloads and a negative NaN.
  std::vector<T> specials = {inf, -inf, bits_nan<T>(1), bits_nan<T>(12345), -bits_nan<T>(77),
                             std::numeric_limits<T>::quiet_NaN()};
  size_t nonfinite = 0;
  for (size_t k = 0; k < 24; ++k, ++nonfinite) x[200 + 4 * k + k % 4] = specials[k % specials.size()];
  x[0] = -inf;
  x[999] = std::numeric_limits<T>::quiet_NaN();
  nonfinite += 2;
  auto f = roundtrip(x, 1e-3);
  Layout l = parse(f.payload);
  EXPECT_EQ(l.mode, 0);
  EXPECT_GE(l.exceptions, nonfinite);
  EXPECT_LE(l.exceptions, nonfinite + 10);
}

template <class T>
void all_nan_case() {
  std::vector<T> x(513, std::numeric_limits<T>::quiet_NaN());
  auto f = roundtrip(x, 1e-2);
  EXPECT_EQ(parse(f.payload).mode, 1);
  EXPECT_EQ(f.payload.size(), 8 + x.size() * sizeof(T));
}

template <class T>
void tiny_case() {
  for (size_t n : {0, 1, 2, 3, 4, 5, 9}) {
    auto x = ct::make_data<T>(Shape::random_walk, n, 2);
    auto f = roundtrip(x, 1e-3);
    // Never larger than the raw fallback.
    EXPECT_LE(f.payload.size(), 8 + n * sizeof(T)) << n;
    if (n == 0) {
      EXPECT_EQ(parse(f.payload).mode, 1);
    }
  }
}

template <class T>
void smooth_case() {
  auto x = ct::make_data<T>(Shape::smooth3d, 100000, 1);
  auto f = roundtrip(x, 1e-2);
  Layout l = parse(f.payload);
  ASSERT_EQ(l.mode, 0);
  EXPECT_LE(l.exceptions, x.size() / 1000);
  EXPECT_LT(f.payload.size() * 3, x.size() * sizeof(T));
}

template <class T>
void many_bounds_case() {
  for (Shape s : ct::all_shapes()) {
    for (double bound : {1e-12, 1e-7, 1e-3, 0.3, 1e5}) {
      for (uint64_t seed = 0; seed < 2; ++seed) {
        SCOPED_TRACE(ct::shape_name(s) + " bound " + std::to_string(bound));
        roundtrip(ct::make_data<T>(s, 3001, seed), bound);
      }
    }
  }
}

// 2^24 f32 values (one zfp stream of 64 MiB input) and a million f64 values.
template <class T>
void large_case() {
  std::vector<T> x(sizeof(T) == 4 ? size_t{1} << 24 : 1000003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(i % 4099) * T(1e-3) + T(i >> 12) * T(0.5);
  auto f = roundtrip(x, sizeof(T) == 4 ? 1e-3 : 1e-6);
  EXPECT_EQ(f.info.count, x.size());
  EXPECT_EQ(parse(f.payload).mode, 0);
}

class ZfpAccuracy : public ::testing::TestWithParam<cc::Dtype> {};

#define ZFP_TYPED_TEST(name, fn)                                     \
  TEST_P(ZfpAccuracy, name) {                                       \
    if (GetParam() == cc::Dtype::f32) fn<float>();                  \
    else fn<double>();                                              \
  }

ZFP_TYPED_TEST(HugeRangesInsideBlocksBecomeExceptions, huge_range_case)
ZFP_TYPED_TEST(NonFiniteValuesAreCarriedBitExactly, nonfinite_case)
ZFP_TYPED_TEST(AllNanFallsBackToRaw, all_nan_case)
ZFP_TYPED_TEST(EmptyAndTinyArrays, tiny_case)
ZFP_TYPED_TEST(SmoothDataCompressesWithFewExceptions, smooth_case)
ZFP_TYPED_TEST(ManyBoundsAndShapes, many_bounds_case)
ZFP_TYPED_TEST(LargeArrays, large_case)

INSTANTIATE_TEST_SUITE_P(zfp, ZfpAccuracy, ::testing::Values(cc::Dtype::f32, cc::Dtype::f64),
                         [](const auto& info) { return std::string(cc::dtype_name(info.param)); });

// Damage that passes the checksum, aimed at the exception list and the payload prefix.
// The parameter is the element count.
class ZfpDamage : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    x_.resize(GetParam());
    for (size_t i = 0; i < x_.size(); ++i) x_[i] = float(i % 17) * 0.25f;
    x_[10] = std::numeric_limits<float>::infinity();
    x_[20] = std::numeric_limits<float>::quiet_NaN();
    auto frame = zfp().compress(std::span<const float>(x_), cc::ErrorBound::absolute(1e-3));
    ASSERT_TRUE(frame.ok());
    f_ = ct::open_frame(*frame);
    l_ = parse(f_.payload);
    ASSERT_EQ(l_.mode, 0);
    ASSERT_EQ(l_.exceptions, 2u);
  }
  ErrorCode decode(const std::vector<std::byte>& payload, cc::FrameInfo info) {
    ct::GuardedBuffer frame(ct::reframe(info, payload)), y(info.count * sizeof(float));
    return zfp().decompress(frame.bytes(), y.as<float>()).code();
  }
  ErrorCode decode(const std::vector<std::byte>& payload) { return decode(payload, f_.info); }
  size_t first_index_at() const { return l_.count_at + 8; }
  size_t second_index_at() const { return l_.count_at + 8 + 12; }

  std::vector<float> x_;
  ct::OpenFrame f_;
  Layout l_;
};

TEST_P(ZfpDamage, ExceptionIndexPastTheEnd) {
  auto p = f_.payload;
  commpress::core::store_le<uint64_t>(p.data() + second_index_at(), x_.size());
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
  commpress::core::store_le<uint64_t>(p.data() + second_index_at(), ~uint64_t{0});
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
}

TEST_P(ZfpDamage, ExceptionIndicesOutOfOrder) {
  auto p = f_.payload;
  commpress::core::store_le<uint64_t>(p.data() + second_index_at(), 10);
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
  commpress::core::store_le<uint64_t>(p.data() + first_index_at(), 25);
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
}

TEST_P(ZfpDamage, ExceptionCountDisagreesWithBytes) {
  for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{3}, x_.size() + 1, ~uint64_t{0} / 12 + 1}) {
    auto p = f_.payload;
    commpress::core::store_le<uint64_t>(p.data() + l_.count_at, count);
    EXPECT_EQ(decode(p), ErrorCode::corrupt_frame) << count;
  }
}

TEST_P(ZfpDamage, PrefixAndStreamLength) {
  auto p = f_.payload;
  p[0] = std::byte{2};
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
  p = f_.payload;
  p[5] = std::byte{1};
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
  for (uint64_t len : {uint64_t{0}, l_.stream_bytes - 1, l_.stream_bytes + 1, uint64_t{1} << 62}) {
    p = f_.payload;
    commpress::core::store_le<uint64_t>(p.data() + 8, len);
    EXPECT_NE(decode(p), ErrorCode::ok) << len;
  }
  p = f_.payload;
  p[0] = std::byte{1};  // raw mode with the wrong byte count
  EXPECT_EQ(decode(p), ErrorCode::corrupt_frame);
}

TEST_P(ZfpDamage, HeaderWithoutBound) {
  auto info = f_.info;
  info.mode = cc::BoundMode::lossless;
  info.abs_bound = 0;
  info.requested_bound = 0;
  EXPECT_EQ(decode(f_.payload, info), ErrorCode::corrupt_frame);
}

TEST_P(ZfpDamage, EveryTruncationAndRandomEditsNeverCrash) {
  for (size_t len = 0; len < f_.payload.size(); ++len)
    EXPECT_NE(decode({f_.payload.begin(), f_.payload.begin() + len}), ErrorCode::ok) << len;
  std::mt19937 rng(5);
  for (int t = 0; t < 2000; ++t) {
    auto p = f_.payload;
    for (int e = 0; e <= t % 3; ++e) p[rng() % p.size()] = std::byte(rng());
    (void)decode(p);
  }
}

INSTANTIATE_TEST_SUITE_P(zfp, ZfpDamage, ::testing::Values(size_t{300}, size_t{1001}));

}  // namespace
