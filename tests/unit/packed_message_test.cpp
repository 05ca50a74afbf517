// The packed point-to-point message (commpress/packed_message.hpp): round trips bit for bit
// and within the bound, the length rule a receiver relies on, the key, and damaged or short
// input reported as an error, never read past.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "commpress/packed_message.hpp"

namespace {

namespace cm = commpress::comm;
using commpress::ErrorCode;

constexpr uint64_t kKey = 0x0123456789abcdefull;

std::vector<double> walk(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> step(-1, 1);
  std::vector<double> x(n);
  double v = 0;
  for (double& e : x) e = v += step(g);
  return x;
}

cm::Options options(const char* codec, cm::ErrorBound bound) {
  cm::Options o;
  o.codec = codec;
  o.bound = bound;
  o.algorithm = commpress::Algorithm::Direct;  // compress whatever the model would say
  return o;
}

TEST(PackedMessage, LosslessRoundTripIsBitForBit) {
  const auto x = walk(100003, 1);
  auto m = cm::pack_message(x.data(), x.size(), cm::Dtype::f64, kKey,
                            options("zstd-1", cm::ErrorBound::lossless()));
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  ASSERT_GT(m->size, 0u);
  EXPECT_LT(m->size, x.size() * sizeof(double));
  EXPECT_TRUE(cm::may_be_packed_message(m->size));
  EXPECT_EQ(m->size % 4, 1u);
  EXPECT_EQ(m->report.codec, "zstd-1");
  EXPECT_EQ(m->report.bytes_sent, m->size);
  auto info = cm::packed_message_info(m->bytes(), kKey);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->count, x.size());
  EXPECT_EQ(info->dtype, cm::Dtype::f64);
  std::vector<double> y(x.size() + 5, -1);
  auto r = cm::unpack_message(m->bytes(), kKey, y.data(), y.size());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)), 0);
  EXPECT_EQ(y[x.size()], -1);  // nothing written past the message
  EXPECT_EQ(r->guaranteed_abs_bound, 0);
}

TEST(PackedMessage, LossyRoundTripHoldsTheBoundOnEveryElement) {
  const auto x64 = walk(70001, 2);
  std::vector<float> x(x64.begin(), x64.end());
  auto m = cm::pack_message(x.data(), x.size(), cm::Dtype::f32, kKey,
                            options("szp", cm::ErrorBound::relative(1e-3)));
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  ASSERT_GT(m->size, 0u);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  const double bound = m->report.guaranteed_abs_bound;
  EXPECT_GT(bound, 0);
  EXPECT_LE(bound, 1e-3 * (double(*hi) - double(*lo)) * (1 + 1e-9));
  std::vector<float> y(x.size());
  auto r = cm::unpack_message(m->bytes(), kKey, y.data(), y.size());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->guaranteed_abs_bound, bound);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_LE(std::fabs(double(y[i]) - x[i]), bound) << i;
}

TEST(PackedMessage, NothingPackedWhenItWouldNotBeSmallerOrNoCodecIsAsked) {
  std::mt19937_64 g(3);
  std::vector<uint64_t> noise(50000);
  for (auto& v : noise) v = g() & 0x7fefffffffffffffull;  // finite doubles, incompressible
  auto m = cm::pack_message(noise.data(), noise.size(), cm::Dtype::f64, kKey,
                            options("zstd-1", cm::ErrorBound::lossless()));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->size, 0u);
  EXPECT_EQ(m->report.codec, "none");
  const auto x = walk(1000, 4);
  auto none = cm::pack_message(x.data(), x.size(), cm::Dtype::f64, kKey,
                               options("none", cm::ErrorBound::lossless()));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->size, 0u);
  auto ints = cm::pack_message(x.data(), x.size(), cm::Dtype::i32, kKey,
                               options("zstd-1", cm::ErrorBound::lossless()));
  EXPECT_EQ(ints.status().code(), ErrorCode::invalid_argument);
}

TEST(PackedMessage, AnotherKeyOrPlainBytesAreNotAPackedMessage) {
  const auto x = walk(20000, 5);
  auto m = cm::pack_message(x.data(), x.size(), cm::Dtype::f64, kKey,
                            options("zstd-1", cm::ErrorBound::lossless()));
  ASSERT_TRUE(m.ok() && m->size > 0);
  EXPECT_EQ(cm::packed_message_info(m->bytes(), kKey + 1).status().code(), ErrorCode::mismatch);
  std::vector<std::byte> plain(m->size, std::byte{0x41});
  EXPECT_EQ(cm::packed_message_info(plain, kKey).status().code(), ErrorCode::mismatch);
  EXPECT_FALSE(cm::may_be_packed_message(x.size() * sizeof(double)));
  EXPECT_FALSE(cm::may_be_packed_message(cm::kPackedHeaderSize - 1));
}

TEST(PackedMessage, TooSmallAReceiveIsTruncatedNotOverrun) {
  const auto x = walk(20000, 6);
  auto m = cm::pack_message(x.data(), x.size(), cm::Dtype::f64, kKey,
                            options("zstd-1", cm::ErrorBound::lossless()));
  ASSERT_TRUE(m.ok() && m->size > 0);
  std::vector<double> y(x.size() - 1);
  EXPECT_EQ(cm::unpack_message(m->bytes(), kKey, y.data(), y.size()).status().code(),
            ErrorCode::truncated);
}

TEST(PackedMessage, DamagedOrShortenedMessagesFailCleanly) {
  const auto x = walk(30000, 7);
  auto m = cm::pack_message(x.data(), x.size(), cm::Dtype::f64, kKey,
                            options("zstd-1", cm::ErrorBound::lossless()));
  ASSERT_TRUE(m.ok() && m->size > 0);
  std::vector<double> y(x.size());
  for (size_t at = 0; at < m->size; at += (at < cm::kPackedHeaderSize ? 1 : 997)) {
    std::vector<std::byte> bad(m->bytes().begin(), m->bytes().end());
    bad[at] ^= std::byte{0x5a};
    auto r = cm::unpack_message(bad, kKey, y.data(), y.size());
    if (at < cm::kPackedHeaderSize || at >= m->size - 4) continue;  // header: must fail below
    EXPECT_FALSE(r.ok()) << "payload byte " << at;
  }
  for (size_t at = 0; at < cm::kPackedHeaderSize; ++at) {
    std::vector<std::byte> bad(m->bytes().begin(), m->bytes().end());
    bad[at] ^= std::byte{0x01};
    EXPECT_FALSE(cm::unpack_message(bad, kKey, y.data(), y.size()).ok()) << "header byte " << at;
  }
  for (size_t cut : {size_t(1), size_t(4), size_t(1000), m->size - 81}) {
    std::span<const std::byte> shorter = m->bytes().first(m->size - cut);
    EXPECT_FALSE(cm::unpack_message(shorter, kKey, y.data(), y.size()).ok()) << "cut " << cut;
  }
}

}  // namespace
