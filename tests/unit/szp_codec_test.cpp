// The "szp" codec end to end: the bound on every element across shapes, sizes and bounds;
// frames independent of the thread count; the block kinds actually chosen; corrupt payloads
// refused.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>

#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::ErrorCode;
using commpress::testing::Shape;

namespace {

const cc::Codec& szp_codec() {
  const cc::Codec* c = cc::find_codec("szp");
  EXPECT_NE(c, nullptr);
  return *c;
}

std::span<const std::byte> payload_of(const std::vector<std::byte>& frame) {
  return std::span<const std::byte>(frame).subspan(cc::kFrameHeaderSize);
}

template <class T>
void check_round_trip(const std::vector<T>& x, const cc::ErrorBound& bound, const std::string& what) {
  const cc::Codec& codec = szp_codec();
  auto frame = codec.compress(std::span<const T>(x), bound);
  ASSERT_TRUE(frame.ok()) << what << ": " << frame.status().to_string();
  ASSERT_LE(frame->size(), codec.compress_bound(x.size(), cc::dtype_of<T>())) << what;
  auto info = cc::inspect(*frame);
  ASSERT_TRUE(info.ok()) << what;
  std::vector<T> y(x.size());
  auto st = codec.decompress(*frame, std::span<T>(y));
  ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
  const long double promised = commpress::testing::promised_bound<T>(x, bound);
  ASSERT_LE((long double)info->abs_bound, promised) << what;
  auto err = commpress::testing::check_bound<T>(x, y, promised);
  ASSERT_TRUE(err.empty()) << what << ": " << err;
}

template <class T>
void sweep_small_sizes() {
  const std::vector<size_t> sizes = {0, 1, 2, 31, 32, 33, 97, 1021};
  int arrays = 0;
  for (Shape shape : commpress::testing::all_shapes())
    for (size_t n : sizes)
      for (int e = 1; e <= 7; ++e)
        for (uint64_t seed = 0; seed < 2; ++seed) {
          auto x = commpress::testing::make_data<T>(shape, n, seed * 131 + e);
          double b = std::pow(10.0, -e);
          std::string what = commpress::testing::shape_name(shape) + " n=" + std::to_string(n) +
                             " bound=1e-" + std::to_string(e) + " seed=" + std::to_string(seed);
          check_round_trip(x, cc::ErrorBound::absolute(b), what + " abs");
          check_round_trip(x, cc::ErrorBound::relative(b), what + " rel");
          arrays += 2;
          if (::testing::Test::HasFatalFailure()) return;
        }
  EXPECT_GT(arrays, 2000);
}

TEST(SzpCodec, ManyRandomArraysF32) { sweep_small_sizes<float>(); }
TEST(SzpCodec, ManyRandomArraysF64) { sweep_small_sizes<double>(); }

TEST(SzpCodec, LargeArraysKeepTheBound) {
  const size_t n = 1000003;
  for (Shape shape : commpress::testing::all_shapes()) {
    auto xf = commpress::testing::make_data<float>(shape, n, 5);
    check_round_trip(xf, cc::ErrorBound::relative(1e-4), "f32 " + commpress::testing::shape_name(shape));
    auto xd = commpress::testing::make_data<double>(shape, n, 6);
    check_round_trip(xd, cc::ErrorBound::absolute(1e-7), "f64 " + commpress::testing::shape_name(shape));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class T>
void thread_count_independent() {
  const cc::Codec& codec = szp_codec();
  const size_t n = 1000003;  // enough blocks for several chunks
  auto x = commpress::testing::make_data<T>(Shape::nonfinite, n, 3);
  int saved = omp_get_max_threads();
  std::vector<std::byte> reference;
  std::vector<T> y_ref;
  for (int threads : {1, 2, 3, 4}) {
    omp_set_num_threads(threads);
    auto frame = codec.compress(std::span<const T>(x), cc::ErrorBound::relative(1e-4));
    ASSERT_TRUE(frame.ok());
    std::vector<T> y(n);
    ASSERT_TRUE(codec.decompress(*frame, std::span<T>(y)).ok());
    if (reference.empty()) {
      reference = *frame;
      y_ref = y;
    } else {
      EXPECT_EQ(*frame, reference) << threads << " threads";
      EXPECT_TRUE(commpress::testing::bit_equal<T>(y, y_ref)) << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
}

TEST(SzpCodec, BytesIndependentOfThreadCountF32) { thread_count_independent<float>(); }
TEST(SzpCodec, BytesIndependentOfThreadCountF64) { thread_count_independent<double>(); }

TEST(SzpCodec, ZeroArrayIsOnlyHeaderBytes) {
  std::vector<float> x(1000, 0.0f);
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-3));
  ASSERT_TRUE(frame.ok());
  auto p = payload_of(*frame);
  ASSERT_EQ(p.size(), szp::block_count(1000));
  for (std::byte b : p) EXPECT_EQ(b, std::byte{szp::kZeroHeader});
}

TEST(SzpCodec, ConstantArrayUsesBareOutlierBlocks) {
  std::vector<float> x(1000, 3.25f);  // q = 1625, zigzag 3250: two bytes per block
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-3));
  ASSERT_TRUE(frame.ok());
  auto p = payload_of(*frame);
  size_t nb = szp::block_count(1000);
  ASSERT_EQ(p.size(), nb + 2 * nb);
  for (size_t b = 0; b < nb; ++b) EXPECT_EQ(uint8_t(p[b]), szp::lossy_outlier_header(2, 0));
  std::vector<double> xd(100, -7.0);  // q = -3500, zigzag 6999
  auto fd = szp_codec().compress(std::span<const double>(xd), cc::ErrorBound::absolute(1e-3));
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(payload_of(*fd).size(), 4u + 4 * 2);
}

TEST(SzpCodec, KindsFollowTheData) {
  const size_t n = 32 * 64;
  std::vector<float> x(n);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  for (size_t i = 0; i < n; ++i) {
    size_t b = i / 32;
    // Block b: 0 mod 4 noise starting at 0 (plain), 1 a big offset plus small noise
    // (outlier), 2 a NaN (raw), 3 zeros.
    switch (b % 4) {
      case 0: x[i] = i % 32 == 0 ? 0.0f : nd(rng); break;
      case 1: x[i] = 5000.0f + 0.01f * nd(rng); break;
      case 2: x[i] = i % 32 == 5 ? NAN : nd(rng); break;
      default: x[i] = 0.0f;
    }
  }
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::absolute(0.05));
  ASSERT_TRUE(frame.ok());
  auto p = payload_of(*frame);
  for (size_t b = 0; b < n / 32; ++b) {
    auto hd = szp::parse_header<float>(uint8_t(p[b]), szp::Mode::lossy);
    const szp::BlockKind want[4] = {szp::BlockKind::plain, szp::BlockKind::outlier,
                                    szp::BlockKind::raw, szp::BlockKind::zero};
    EXPECT_EQ(hd.kind, want[b % 4]) << "block " << b;
  }
  std::vector<float> y(n);
  ASSERT_TRUE(szp_codec().decompress(*frame, std::span<float>(y)).ok());
  EXPECT_TRUE(commpress::testing::check_bound<float>(x, y, 0.05).empty());
}

TEST(SzpCodec, CompressesRandomWalk) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 1 << 18, 1);
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(frame.ok());
  EXPECT_GT(double(x.size() * 4) / frame->size(), 8.0);
}

// Decodes a modified payload through Codec::decode, bypassing the frame checksum, as a forged
// frame would.
class SzpCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    x_ = commpress::testing::make_data<float>(Shape::nonfinite, n_, 2);
    auto frame = szp_codec().compress(std::span<const float>(x_), cc::ErrorBound::absolute(1e-2));
    ASSERT_TRUE(frame.ok());
    info_ = *cc::inspect(*frame);
    auto p = payload_of(*frame);
    payload_.assign(p.begin(), p.end());
  }
  commpress::Status decode(const std::vector<std::byte>& payload) {
    cc::FrameInfo info = info_;
    info.payload_size = payload.size();
    std::vector<float> y(n_);
    cc::Workspace ws;
    return szp_codec().decode(payload, info, y.data(), ws);
  }
  const size_t n_ = 5000;
  std::vector<float> x_;
  cc::FrameInfo info_;
  std::vector<std::byte> payload_;
};

TEST_F(SzpCorruption, IntactPayloadDecodes) { EXPECT_TRUE(decode(payload_).ok()); }

TEST_F(SzpCorruption, InvalidHeaderBytesAreRejected) {
  for (int h : {0x21, 0x40, 0xC1, 0xD0, 0xFE}) {
    auto bad = payload_;
    bad[17] = std::byte(h);
    auto st = decode(bad);
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << h << ": " << st.to_string();
  }
}

TEST_F(SzpCorruption, SizeMismatchesAreRejected) {
  for (size_t b = 0; b < 20; ++b) {
    auto bad = payload_;
    uint8_t h = uint8_t(bad[b]);
    bad[b] = std::byte(h == 0x05 ? 0x06 : 0x05);  // a different valid header: sizes disagree
    EXPECT_FALSE(decode(bad).ok()) << "block " << b;
  }
  auto longer = payload_;
  longer.push_back(std::byte{0});
  EXPECT_EQ(decode(longer).code(), ErrorCode::corrupt_frame);
  auto shorter = payload_;
  shorter.pop_back();
  EXPECT_EQ(decode(shorter).code(), ErrorCode::corrupt_frame);
  std::vector<std::byte> tiny(10);
  EXPECT_EQ(decode(tiny).code(), ErrorCode::truncated);
  EXPECT_FALSE(decode({}).ok());
}

TEST_F(SzpCorruption, RandomPayloadsNeverCrash) {
  std::mt19937_64 rng(8);
  size_t nb = szp::block_count(n_);
  int accepted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // Valid random headers with exactly the body bytes they need: decodes to something.
    std::vector<std::byte> p(nb);
    size_t bodies = 0;
    for (size_t b = 0; b < nb; ++b) {
      uint8_t h;
      do h = uint8_t(rng());
      while (szp::parse_header<float>(h, szp::Mode::lossy).kind == szp::BlockKind::invalid);
      // A partial last block's padding lanes must repeat its last value (docs/format/szp.md),
      // which random bits do not: a raw or zero block has no padding to get wrong.
      if (b + 1 == nb && szp::valid_in_block(n_, b) < szp::kBlockValues)
        h = (rng() & 1) ? szp::kRawHeader : uint8_t{0};
      p[b] = std::byte(h);
      bodies += szp::body_size<float>(h, szp::valid_in_block(n_, b), szp::Mode::lossy);
    }
    for (size_t i = 0; i < bodies; ++i) p.push_back(std::byte(rng()));
    if (trial % 2) p.resize(rng() % (p.size() + 1));
    accepted += decode(p).ok();
  }
  EXPECT_GT(accepted, 100);
}

TEST(SzpCodec, RejectsNegativeAndNonFiniteBoundFrames) {
  std::vector<float> x(10, 1.0f);
  auto frame = szp_codec().compress(std::span<const float>(x), cc::ErrorBound::absolute(1e-2));
  ASSERT_TRUE(frame.ok());
  std::vector<float> y(10);
  cc::Workspace ws;
  for (double bad : {-1e-2, std::nan(""), double(INFINITY)}) {
    cc::FrameInfo info = *cc::inspect(*frame);
    info.abs_bound = bad;
    EXPECT_EQ(szp_codec().decode(payload_of(*frame), info, y.data(), ws).code(),
              ErrorCode::corrupt_frame)
        << bad;
  }
}

// A bound of 0 (a lossless request, or a REL bound over a range of 0) keeps every value: zeros
// as zero blocks, everything else raw, NaN and Inf too.
TEST(SzpCodec, ZeroBoundCarriesEveryValueExactly) {
  std::vector<double> x(1000, 0.0);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = 1e-300 * double(i) + 3.0;
  x[5] = std::nan("");
  x[6] = -INFINITY;
  auto frame = szp_codec().compress(std::span<const double>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(frame.ok()) << frame.status().to_string();
  EXPECT_EQ(cc::inspect(*frame)->abs_bound, 0.0);
  std::vector<double> y(x.size());
  ASSERT_TRUE(cc::decompress(*frame, std::span<double>(y)).ok());
  EXPECT_TRUE(commpress::testing::bit_equal<double>(x, y));
  // Constant data under REL: range 0, so exact; the zeros between cost no raw blocks.
  std::vector<double> c(4096, 2.5);
  auto fc = szp_codec().compress(std::span<const double>(c), cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(fc.ok());
  std::vector<double> z(1 << 16, 0.0);
  auto fz = szp_codec().compress(std::span<const double>(z), cc::ErrorBound::relative(1e-3));
  ASSERT_TRUE(fz.ok());
  EXPECT_LT(fz->size(), z.size());  // about a header byte per 32 zeros
  std::vector<double> back(c.size());
  ASSERT_TRUE(cc::decompress(*fc, std::span<double>(back)).ok());
  EXPECT_TRUE(commpress::testing::bit_equal<double>(c, back));
  // A lossy frame whose bound is forged to 0 (checksum resealed) is refused, not decoded to
  // zeros: its quantized blocks cannot occur in an exact frame.
  std::vector<double> w(256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.1 * double(i));
  auto lossy = szp_codec().compress(std::span<const double>(w), cc::ErrorBound::absolute(1e-3));
  ASSERT_TRUE(lossy.ok());
  cc::FrameInfo info = *cc::inspect(*lossy);
  info.abs_bound = 0;
  info.mode = cc::BoundMode::rel;
  cc::Workspace ws;
  std::vector<double> out(w.size());
  const auto st = szp_codec().decode(payload_of(*lossy), info, out.data(), ws);
  EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << st.to_string();
}

}  // namespace
