// A decoder must never crash or report success on damaged input: every frame truncated at
// every byte offset, and with random bit flips, yields an error status.
#include <gtest/gtest.h>

#include <random>

#include "commpress/codec.hpp"
#include "support/datasets.hpp"
#include "support/registry_params.hpp"

namespace cc = commpress::codec;
using commpress::testing::Shape;

namespace {

class CorruptFrames : public ::testing::TestWithParam<std::string> {};

std::vector<std::byte> sample_frame(const cc::Codec& codec, size_t n) {
  auto x = commpress::testing::make_data<float>(Shape::nonfinite, n, 7);
  auto frame = codec.compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-3));
  EXPECT_TRUE(frame.ok()) << frame.status().to_string();
  return frame.ok() ? *frame : std::vector<std::byte>{};
}

TEST_P(CorruptFrames, EveryTruncationIsAnError) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  if (!codec->supports(cc::Dtype::f32)) GTEST_SKIP();
  auto frame = sample_frame(*codec, 300);
  std::vector<float> out(300);
  for (size_t len = 0; len < frame.size(); ++len) {
    std::vector<std::byte> cut(frame.begin(), frame.begin() + len);  // exact-size copy for ASan
    auto st = codec->decompress(cut, std::span<float>(out));
    ASSERT_FALSE(st.ok()) << "truncated to " << len << " of " << frame.size() << " bytes";
  }
}

TEST_P(CorruptFrames, BitFlipsAreErrors) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  if (!codec->supports(cc::Dtype::f32)) GTEST_SKIP();
  auto frame = sample_frame(*codec, 1000);
  std::vector<float> out(1000);
  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    auto bad = frame;
    int flips = 1 + trial % 3;
    for (int f = 0; f < flips; ++f) {
      size_t bit = rng() % (bad.size() * 8);
      bad[bit / 8] ^= std::byte(1u << (bit % 8));
    }
    // Checksummed frames must always be caught.
    ASSERT_FALSE(codec->decompress(bad, std::span<float>(out)).ok()) << "trial " << trial;
  }
}

COMMPRESS_INSTANTIATE_FOR_EVERY_CODEC(CorruptFrames);

TEST(FrameHeader, RejectsGarbage) {
  std::vector<std::byte> junk(200, std::byte{0x5a});
  auto info = cc::inspect(junk);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), commpress::ErrorCode::corrupt_frame);
  EXPECT_FALSE(cc::inspect({}).ok());
}

}  // namespace
