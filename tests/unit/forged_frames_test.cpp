// Frames forged with valid checksums, for every registered codec: a count the payload cannot
// hold, a count one off, and bound fields the payload was not written with. Each must be
// refused the way `commpress codec decompress` meets it (inspect, allocate the header's count,
// decode), and refusing must cost no memory sized by the forged count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "support/peak_rss.hpp"
#include "support/reframe.hpp"
#include "support/registry_params.hpp"

namespace cc = commpress::codec;
using commpress::ErrorCode;
using commpress::Status;
using commpress::testing::OpenFrame;

namespace {

constexpr uint64_t kRssSlack = uint64_t{256} << 20;
// The test's own cap on what it allocates for a count inspect() accepted. Every count above
// it is one the frame cannot hold; were one accepted, allocating it could take the machine
// down instead of failing the test.
constexpr uint64_t kMostBytesToAllocate = uint64_t{1} << 30;

// Neighbours differ by far more than the lossy bound, so no changed count hides in a value
// that merely repeats its neighbour.
std::vector<double> sample(size_t n) {
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 100.0 * std::sin(0.05 * double(i)) + 0.37 * double(i);
  return x;
}

OpenFrame frame_of(const cc::Codec& codec, size_t n) {
  auto x = sample(n);
  auto bound = codec.lossy() ? cc::ErrorBound::absolute(1e-3) : cc::ErrorBound::lossless();
  auto frame = codec.compress(std::span<const double>(x), bound);
  EXPECT_TRUE(frame.ok()) << frame.status().to_string();
  if (!frame.ok()) return {};
  return commpress::testing::open_frame(*frame);
}

// What `commpress codec decompress` does with a file.
Status decode_as_the_cli_does(std::span<const std::byte> frame) {
  auto info = cc::inspect(frame);
  if (!info.ok()) return info.status();
  const uint64_t bytes = info->count * cc::dtype_size(info->dtype);
  if (bytes > kMostBytesToAllocate)
    return {ErrorCode::internal, "inspect accepted " + std::to_string(info->count) +
                                     " elements from a " + std::to_string(frame.size()) +
                                     "-byte frame"};
  std::vector<std::byte> out(bytes);
  return cc::decompress(frame, out.data(), info->count, info->dtype);
}

class ForgedFrames : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    codec_ = cc::find_codec(GetParam());
    ASSERT_NE(codec_, nullptr);
    ASSERT_TRUE(codec_->supports(cc::Dtype::f64));
  }
  const cc::Codec* codec_ = nullptr;
};

TEST_P(ForgedFrames, CountsThePayloadCannotHoldAreRefusedBeforeAnyAllocation) {
  const OpenFrame f = frame_of(*codec_, 1024);
  const uint64_t rss_before = commpress::testing::peak_rss_bytes();
  for (uint64_t count :
       {uint64_t{1} << 62, (uint64_t{1} << 61) + 1, uint64_t{1} << 57, cc::kMaxCount + 1,
        cc::kMaxCount, uint64_t{1} << 48, uint64_t{1} << 40, uint64_t{1} << 32,
        uint64_t{1} << 27, uint64_t{1} << 24}) {
    OpenFrame forged = f;
    forged.info.count = count;
    const auto frame = commpress::testing::reframe(forged);
    // inspect() itself must refuse: it is what every caller consults before allocating.
    auto info = cc::inspect(frame);
    EXPECT_FALSE(info.ok()) << count << " elements accepted from " << frame.size() << " bytes";
    if (!info.ok()) {
      EXPECT_EQ(info.status().code(), ErrorCode::corrupt_frame) << info.status().to_string();
    }
    Status st = decode_as_the_cli_does(frame);
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << count << ": " << st.to_string();
  }
  const uint64_t rise = commpress::testing::peak_rss_bytes() - rss_before;
  std::printf("%s: peak RSS rose by %llu KiB\n", std::string(codec_->name()).c_str(),
              static_cast<unsigned long long>(rise >> 10));
  EXPECT_LT(rise, kRssSlack);
}

// Where no payload can witness the count (docs/format/zfp.md): zfp's fixed-accuracy blocks
// come back approximately, so their padding proves nothing; and one more block may be read
// from the zero bits that end a stream's last byte, as an array ending in a zero block would.
bool count_unwitnessed(const cc::Codec& codec, int delta) {
  if (codec.id() == cc::CodecId::zfp_accuracy) return true;
  return codec.id() == cc::CodecId::zfp_reversible && delta > 0;
}

TEST_P(ForgedFrames, CountsOneOffAreRefused) {
  // 1024 ends a zfp block and an szp block; 1022 ends inside both.
  for (size_t n : {size_t{1024}, size_t{1022}}) {
    const OpenFrame f = frame_of(*codec_, n);
    for (int delta : {-1, +1}) {
      if (count_unwitnessed(*codec_, delta)) continue;
      // Within a partial block, one more value reads the block's padding, which repeats the
      // last value (szp-e: continues its prediction): the same payload as the array with
      // that value appended.
      if (n % 32 != 0 && delta > 0 &&
          (codec_->id() == cc::CodecId::szp || codec_->id() == cc::CodecId::szp_lossless ||
           codec_->id() == cc::CodecId::szp_e))
        continue;
      OpenFrame forged = f;
      forged.info.count = n + delta;
      Status st = decode_as_the_cli_does(commpress::testing::reframe(forged));
      EXPECT_FALSE(st.ok()) << n << " elements decoded as " << n + delta;
      EXPECT_NE(st.code(), ErrorCode::internal) << st.to_string();
    }
  }
}

struct BoundFields {
  cc::BoundMode mode;
  double requested, abs;
};

TEST_P(ForgedFrames, BoundFieldsThePayloadWasNotWrittenWithAreRefused) {
  const OpenFrame f = frame_of(*codec_, 1000);
  using M = cc::BoundMode;
  std::vector<BoundFields> forged;
  if (!codec_->lossy()) {
    forged = {{M::abs, 1e-3, 1e-3}, {M::rel, 1e-3, 1e-3}, {M::lossless, 1e-3, 0},
              {M::lossless, 0, 1e-3}};
  } else {
    forged = {{M::lossless, 1e-3, 1e-3}, {M::abs, 1e-3, 4e-3}, {M::abs, 4e-3, 1e-3},
              {M::abs, 0, 0}};
    // Only pred-bit's payload records the bound (as its power of two); szp's and zfp's take
    // it from the header as their step or tolerance, pred-byte's only steered the encoder.
    if (codec_->id() == cc::CodecId::pred_bit)
      forged.insert(forged.end(),
                    {{M::abs, 4e-3, 4e-3}, {M::abs, 2.5e-4, 2.5e-4}, {M::rel, 1e-6, 4e-3}});
    // A bound of 0 is every lossy codec's exact form (lossless, or REL over a range of 0):
    // szp's holds only zero and raw blocks, zfp's a reversible stream under its own payload
    // mode, pred-bit's records the widest bound exponent. pred-byte's payload records nothing
    // of the bound, so its exact form cannot be told from a lossy one.
    if (codec_->id() != cc::CodecId::pred_byte)
      forged.insert(forged.end(), {{M::lossless, 0, 0}, {M::rel, 1e-6, 0}});
  }
  for (const BoundFields& b : forged) {
    OpenFrame bad = f;
    bad.info.mode = b.mode;
    bad.info.requested_bound = b.requested;
    bad.info.abs_bound = b.abs;
    Status st = decode_as_the_cli_does(commpress::testing::reframe(bad));
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame)
        << cc::bound_mode_name(b.mode) << " " << b.requested << " " << b.abs << ": "
        << st.to_string();
  }
}

COMMPRESS_INSTANTIATE_FOR_EVERY_CODEC(ForgedFrames);

}  // namespace
