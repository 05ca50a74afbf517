// Damaged pred-byte / pred-bit payloads are refused with a status, never decoded into
// garbage reported as success and never read out of bounds. The frame checksum would catch
// most of these first, so the payloads are handed to the decoders directly, and also
// re-framed with a valid checksum to go through the public decompress path.
#include <gtest/gtest.h>

#include <random>

#include "codec/format/frame_header.hpp"
#include "codec/lossy/predictive/bit_stream.hpp"
#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
using commpress::ErrorCode;
using commpress::testing::Shape;

namespace {

struct Sample {
  const cc::Codec* codec;
  cc::FrameInfo info;
  std::vector<std::byte> payload;
};

template <class T>
Sample sample(const char* name, size_t n, double bound = 1e-3) {
  // A random walk with NaN/Inf sprinkled in exercises codes, truncated and verbatim values.
  auto x = commpress::testing::make_data<T>(Shape::nonfinite, n, 7);
  const cc::Codec* codec = cc::find_codec(name);
  auto frame = codec->compress(std::span<const T>(x), cc::ErrorBound::absolute(bound));
  EXPECT_TRUE(frame.ok());
  auto info = cc::inspect(*frame);
  EXPECT_TRUE(info.ok());
  return {codec, *info,
          std::vector<std::byte>(frame->begin() + cc::kFrameHeaderSize, frame->end())};
}

template <class T>
commpress::Status decode(const Sample& s, std::span<const std::byte> payload,
                         size_t count_override = SIZE_MAX) {
  cc::FrameInfo info = s.info;
  if (count_override != SIZE_MAX) info.count = count_override;
  std::vector<T> out(info.count);
  cc::Workspace ws;
  return s.codec->decode(payload, info, out.data(), ws);
}

// The same payload behind a header with a correct checksum, through decompress().
template <class T>
commpress::Status decompress_forged(const Sample& s, std::span<const std::byte> payload) {
  cc::FrameInfo info = s.info;
  info.payload_size = payload.size();
  std::vector<std::byte> frame(cc::kFrameHeaderSize + payload.size());
  std::copy(payload.begin(), payload.end(), frame.begin() + cc::kFrameHeaderSize);
  cc::detail::write_frame_header(info, payload, frame.data());
  std::vector<T> out(info.count);
  return s.codec->decompress(frame, std::span<T>(out));
}

template <class T>
void every_truncation_and_extension_fails(const char* name) {
  auto s = sample<T>(name, 300);
  ASSERT_TRUE(decode<T>(s, s.payload).ok());
  for (size_t len = 0; len < s.payload.size(); ++len) {
    std::vector<std::byte> cut(s.payload.begin(), s.payload.begin() + len);
    auto st = decode<T>(s, cut);
    ASSERT_FALSE(st.ok()) << name << " payload cut to " << len << " of " << s.payload.size();
    ASSERT_TRUE(st.code() == ErrorCode::truncated || st.code() == ErrorCode::corrupt_frame)
        << st.to_string();
  }
  auto longer = s.payload;
  longer.push_back(std::byte{0});
  EXPECT_EQ(decode<T>(s, longer).code(), ErrorCode::corrupt_frame) << name;
  EXPECT_EQ(decompress_forged<T>(s, longer).code(), ErrorCode::corrupt_frame) << name;
  // The payload of 300 elements is not one of 299 or 301.
  EXPECT_FALSE(decode<T>(s, s.payload, 299).ok()) << name;
  EXPECT_FALSE(decode<T>(s, s.payload, 301).ok()) << name;
}

TEST(PredictiveCorruption, TruncationAndExtensionFail) {
  for (const char* name : {"pred-byte", "pred-bit"}) {
    every_truncation_and_extension_fails<float>(name);
    every_truncation_and_extension_fails<double>(name);
  }
}

TEST(PredictiveCorruption, NonFiniteOffsetIsRefused) {
  for (const char* name : {"pred-byte", "pred-bit"}) {
    auto s = sample<float>(name, 50);
    commpress::core::store_le<float>(s.payload.data(), std::numeric_limits<float>::infinity());
    EXPECT_EQ(decode<float>(s, s.payload).code(), ErrorCode::corrupt_frame) << name;
  }
}

// pred-byte layout: offset, one code byte per element, verbatim values.
TEST(PredictiveCorruption, ByteWiseBadCodes) {
  auto s = sample<float>("pred-byte", 300);
  const size_t codes = sizeof(float);
  for (uint8_t bad : {uint8_t{5}, uint8_t{0x80}, uint8_t{0xff}}) {
    auto p = s.payload;
    p[codes + 123] = std::byte{bad};
    auto st = decode<float>(s, p);
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame);
    EXPECT_NE(st.message().find("element 123"), std::string::npos) << st.message();
    EXPECT_EQ(decompress_forged<float>(s, p).code(), ErrorCode::corrupt_frame);
  }
  // Turning a verbatim code into a prediction (or back) breaks the count of verbatim values.
  size_t verbatim = 0, predicted = 0;
  for (size_t i = 0; i < 300; ++i)
    (s.payload[codes + i] == std::byte{4} ? verbatim : predicted) = i;
  auto p = s.payload;
  p[codes + verbatim] = std::byte{0};
  EXPECT_FALSE(decode<float>(s, p).ok());
  p = s.payload;
  p[codes + predicted] = std::byte{4};
  EXPECT_FALSE(decode<float>(s, p).ok());
}

// pred-bit layout: offset, bound exponent (i16), bit stream.
TEST(PredictiveCorruption, BitWiseBadHeaderAndPieces) {
  auto s = sample<double>("pred-bit", 300);
  for (int16_t bad : {int16_t{-1024}, int16_t{1075}, int16_t{32767}, int16_t{-32768}}) {
    auto p = s.payload;
    commpress::core::store_le<int16_t>(p.data() + sizeof(double), bad);
    EXPECT_EQ(decode<double>(s, p).code(), ErrorCode::corrupt_frame) << bad;
  }
  // A hand-written stream: one predicted piece, then a truncated piece whose exponent field
  // is all ones (the encoder never truncates a non-finite value).
  std::vector<std::byte> p(sizeof(double) + 2 + 8);
  commpress::core::store_le<double>(p.data(), 0.0);
  commpress::core::store_le<int16_t>(p.data() + sizeof(double), 10);
  commpress::codec::predictive::BitWriter bits(std::span<std::byte>(p).subspan(sizeof(double) + 2));
  bits.put(0b001, 3);    // predicted, order 0
  bits.put(0b00, 2);     // truncated piece
  bits.put(0x7ff, 11);   // exponent field all ones
  auto used = bits.finish();
  ASSERT_TRUE(used.ok());
  p.resize(sizeof(double) + 2 + *used);
  auto st = decode<double>(s, p, 2);
  EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << st.to_string();
  EXPECT_NE(st.message().find("element 1"), std::string::npos) << st.message();
  // The same stream cut after the first piece, with a non-zero padding bit.
  std::vector<std::byte> q(p.begin(), p.begin() + sizeof(double) + 3);
  q.back() = std::byte{0b1001};  // predicted order 0, then a stray bit
  EXPECT_EQ(decode<double>(s, q, 1).code(), ErrorCode::corrupt_frame);
  q.back() = std::byte{0b0001};
  EXPECT_TRUE(decode<double>(s, q, 1).ok());
}

// Random damage behind a valid checksum: any outcome but a crash or an out-of-bounds access
// (run under the sanitizers to check the latter). Most damage must be detected.
template <class T>
void random_damage(const char* name) {
  auto s = sample<T>(name, 1000);
  std::mt19937_64 rng(99);
  int refused = 0;
  const int trials = 1500;
  for (int trial = 0; trial < trials; ++trial) {
    auto p = s.payload;
    const int edits = 1 + int(rng() % 4);
    for (int k = 0; k < edits; ++k) p[rng() % p.size()] = std::byte(rng());
    if (rng() % 4 == 0) p.resize(rng() % p.size());
    refused += !decompress_forged<T>(s, p).ok();
  }
  // Byte-wise codes and bit-wise prefixes are dense, so some damage decodes "successfully"
  // (no format can tell a changed code from a real one without redundancy); most do not.
  EXPECT_GT(refused, trials / 4) << name;
}

TEST(PredictiveCorruption, RandomDamageNeverCrashes) {
  for (const char* name : {"pred-byte", "pred-bit"}) {
    random_damage<float>(name);
    random_damage<double>(name);
  }
}

}  // namespace
