// Counts no frame can hold (above kMaxCount), through the C++ entry points: refused as
// overflow, with no crash and no frame; and for the largest count a frame may hold, every
// codec's worst case is computed without wrapping and fits the header's payload limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "commpress/codec.hpp"
#include "support/registry_params.hpp"

namespace cc = commpress::codec;
using commpress::ErrorCode;

namespace {

constexpr cc::Dtype kDtypes[] = {cc::Dtype::f32, cc::Dtype::f64, cc::Dtype::i32, cc::Dtype::i64,
                                 cc::Dtype::u8};
constexpr uint64_t kPayloadLimit = uint64_t{1} << 62;  // docs/format.md
constexpr size_t kSizeMax = std::numeric_limits<size_t>::max();

class CountLimits : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    codec_ = cc::find_codec(GetParam());
    ASSERT_NE(codec_, nullptr);
  }
  cc::ErrorBound bound() const {
    return codec_->lossy() ? cc::ErrorBound::absolute(1e-3) : cc::ErrorBound::lossless();
  }
  const cc::Codec* codec_ = nullptr;
};

TEST_P(CountLimits, WorstCaseOfTheLargestCountFitsWithoutWrapping) {
  for (cc::Dtype d : kDtypes) {
    if (!codec_->supports(d)) continue;
    const uint64_t top = codec_->max_payload(cc::kMaxCount, d);
    const uint64_t half = codec_->max_payload(cc::kMaxCount / 2, d);
    // A wrapped product would come out smaller than half the count's worst case, or tiny.
    EXPECT_GE(top, half) << cc::dtype_name(d);
    EXPECT_GE(top, cc::kMaxCount / 8) << cc::dtype_name(d);
    EXPECT_LE(top, kPayloadLimit) << cc::dtype_name(d);
    EXPECT_EQ(codec_->compress_bound(cc::kMaxCount, d), cc::kFrameHeaderSize + top);
    EXPECT_EQ(codec_->compress_bound(cc::kMaxCount + 1, d), kSizeMax);
    EXPECT_EQ(codec_->compress_bound(kSizeMax, d), kSizeMax);
  }
}

TEST_P(CountLimits, CompressRefusesCountsNoFrameCanHold) {
  const double data[4] = {1, 2, 3, 4};  // far fewer than claimed: nothing may read them all
  std::vector<std::byte> out(4096);
  cc::Workspace ws;
  for (cc::Dtype d : kDtypes) {
    if (!codec_->supports(d)) continue;
    for (uint64_t n : {uint64_t{kSizeMax}, uint64_t{kSizeMax / 2}, uint64_t{1} << 62,
                       (uint64_t{1} << 61) + 1, cc::kMaxCount + 1}) {
      auto into = codec_->compress_into(data, size_t(n), d, bound(), out, ws);
      EXPECT_EQ(into.status().code(), ErrorCode::overflow) << n << " " << cc::dtype_name(d);
      std::vector<std::byte> frame(3);
      auto st = codec_->compress(data, size_t(n), d, bound(), frame);
      EXPECT_EQ(st.code(), ErrorCode::overflow) << n << " " << cc::dtype_name(d);
      EXPECT_TRUE(frame.empty());
    }
    // The largest count a frame may hold is refused for want of room, not by a crash.
    auto st = codec_->compress_into(data, size_t(cc::kMaxCount), d, bound(), out, ws);
    EXPECT_EQ(st.status().code(), ErrorCode::capacity) << cc::dtype_name(d);
  }
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COMMPRESS_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define COMMPRESS_TEST_ASAN 1
#endif

// AddressSanitizer aborts on an allocation beyond its maximum instead of failing it.
#ifndef COMMPRESS_TEST_ASAN
TEST_P(CountLimits, CompressIntoAVectorReportsAWorstCaseNoMachineHas) {
  const double data[4] = {1, 2, 3, 4};
  for (cc::Dtype d : kDtypes) {
    if (!codec_->supports(d)) continue;
    std::vector<std::byte> frame(3);
    auto st = codec_->compress(data, size_t(cc::kMaxCount), d, bound(), frame);
    EXPECT_EQ(st.code(), ErrorCode::capacity) << cc::dtype_name(d) << ": " << st.to_string();
    EXPECT_TRUE(frame.empty());
  }
}
#endif

COMMPRESS_INSTANTIATE_FOR_EVERY_CODEC(CountLimits);

}  // namespace
