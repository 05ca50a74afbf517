// The szp block primitives on their own: header table, residual coding in both modes, the
// quantizer's guarantee, the order map, and byte equality of the SIMD and portable paths.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "codec/lossy/szp/header_runs.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "codec/lossy/szp/szp_block.hpp"

namespace szp = commpress::codec::szp;
using szp::BlockKind;
using szp::kBlockValues;
using szp::Mode;

namespace {

template <class T>
using Int = szp::IntOf<T>;

TEST(SzpHeader, KindsAndSizes) {
  EXPECT_EQ(szp::parse_header<float>(0x00, Mode::lossy).kind, BlockKind::zero);
  EXPECT_EQ(szp::parse_header<float>(0xFF, Mode::lossy).kind, BlockKind::raw);
  EXPECT_EQ(szp::parse_header<float>(0x20, Mode::lossy).kind, BlockKind::plain);
  EXPECT_EQ(szp::parse_header<float>(0x21, Mode::lossy).kind, BlockKind::invalid);
  EXPECT_EQ(szp::parse_header<double>(0x40, Mode::lossy).kind, BlockKind::plain);
  EXPECT_EQ(szp::parse_header<double>(0xC0, Mode::lossy).kind, BlockKind::outlier);
  for (int h = 0xC1; h < 0xFF; ++h) {
    EXPECT_EQ(szp::parse_header<float>(uint8_t(h), Mode::lossy).kind, BlockKind::invalid) << h;
    EXPECT_EQ(szp::parse_header<double>(uint8_t(h), Mode::lossy).kind, BlockKind::invalid) << h;
  }
  auto o = szp::parse_header<float>(szp::lossy_outlier_header(3, 7), Mode::lossy);
  EXPECT_EQ(o.kind, BlockKind::outlier);
  EXPECT_EQ(o.first_bytes, 3);
  EXPECT_EQ(o.width, 7);
  EXPECT_EQ(szp::body_size<float>(szp::lossy_outlier_header(3, 7), 32, Mode::lossy), 3u + 4 + 28);
  EXPECT_EQ(szp::body_size<float>(szp::lossy_outlier_header(2, 0), 32, Mode::lossy), 2u);
  EXPECT_EQ(szp::body_size<double>(0xFF, 5, Mode::lossy), 40u);
  // Lossless: outlier widths 0..32 (f32) / 0..64 (f64), first value stored whole.
  EXPECT_EQ(szp::parse_header<float>(0x61, Mode::lossless).kind, BlockKind::outlier);
  EXPECT_EQ(szp::parse_header<float>(0x62, Mode::lossless).kind, BlockKind::invalid);
  EXPECT_EQ(szp::parse_header<double>(0x81, Mode::lossless).width, 64);
  EXPECT_EQ(szp::parse_header<double>(0x82, Mode::lossless).kind, BlockKind::invalid);
  EXPECT_EQ(szp::body_size<double>(szp::lossless_outlier_header(0), 32, Mode::lossless), 8u);
  EXPECT_EQ(szp::max_body_size<float>(Mode::lossy), 132u);
  EXPECT_EQ(szp::max_body_size<double>(Mode::lossy), 260u);
  EXPECT_EQ(szp::max_body_size<float>(Mode::lossless), 136u);
  EXPECT_EQ(szp::max_body_size<double>(Mode::lossless), 268u);
}

// Random residuals whose magnitudes fit `width` bits, optionally with a wide first value.
template <class T>
void random_residuals(std::mt19937_64& rng, int width, bool wide_first, Int<T>* r) {
  using U = typename szp::BlockTraits<T>::UInt;
  U mask = width >= int(sizeof(U) * 8) ? ~U(0) : (U(1) << width) - 1;
  for (size_t i = 0; i < kBlockValues; ++i) {
    U m = U(rng()) & mask;
    r[i] = (rng() & 1) ? Int<T>(U(0) - m) : Int<T>(m);
  }
  if (wide_first) r[0] = Int<T>(rng());
}

template <class T>
void residual_round_trip(Mode mode) {
  std::mt19937_64 rng(11);
  std::vector<std::byte> body(szp::max_body_size<T>(mode));
  for (int trial = 0; trial < 4000; ++trial) {
    Int<T> r[kBlockValues], back[kBlockValues];
    int width = int(rng() % (sizeof(T) * 8 + 1));
    random_residuals<T>(rng, width, trial % 3 == 0, r);
    if (trial % 7 == 0) std::fill(r + 1, r + kBlockValues, Int<T>(0));
    uint8_t h = 0, planned = 0;
    size_t size = szp::encode_residuals<T>(r, mode, h, body.data());
    ASSERT_EQ(szp::plan_residuals<T>(r, mode, planned), size);
    ASSERT_EQ(planned, h);
    ASSERT_NE(szp::parse_header<T>(h, mode).kind, BlockKind::invalid);
    ASSERT_NE(h, szp::kRawHeader);
    ASSERT_EQ(szp::body_size<T>(h, kBlockValues, mode), size) << int(h);
    ASSERT_TRUE(szp::decode_residuals<T>(h, mode, {body.data(), size}, back));
    for (size_t i = 0; i < kBlockValues; ++i) ASSERT_EQ(back[i], r[i]) << "lane " << i;
    if (size > 0) {
      ASSERT_FALSE(szp::decode_residuals<T>(h, mode, {body.data(), size - 1}, back));
    }
  }
}

TEST(SzpResiduals, RoundTripLossyF32) { residual_round_trip<float>(Mode::lossy); }
TEST(SzpResiduals, RoundTripLossyF64) { residual_round_trip<double>(Mode::lossy); }
TEST(SzpResiduals, RoundTripLosslessF32) { residual_round_trip<float>(Mode::lossless); }
TEST(SzpResiduals, RoundTripLosslessF64) { residual_round_trip<double>(Mode::lossless); }

TEST(SzpResiduals, ChoosesZeroPlainAndOutlier) {
  std::byte body[szp::max_body_size<float>(Mode::lossy)];
  int32_t r[kBlockValues] = {};
  uint8_t h = 1;
  EXPECT_EQ(szp::encode_residuals<float>(r, Mode::lossy, h, body), 0u);
  EXPECT_EQ(h, szp::kZeroHeader);
  // A constant block: only the first residual is nonzero -> outlier with no planes.
  r[0] = -1000;  // zigzag 1999 -> 2 bytes
  EXPECT_EQ(szp::encode_residuals<float>(r, Mode::lossy, h, body), 2u);
  EXPECT_EQ(h, szp::lossy_outlier_header(2, 0));
  // Small first value, residuals of width 3 everywhere -> plain is smaller.
  for (size_t i = 0; i < kBlockValues; ++i) r[i] = int32_t(i % 5) - 2;
  EXPECT_EQ(szp::encode_residuals<float>(r, Mode::lossy, h, body), 4u + 4 * 2);
  EXPECT_EQ(h, szp::plain_header(2));
  // Large first value with small residuals -> outlier.
  r[0] = 1 << 20;
  EXPECT_EQ(h, szp::plain_header(2));
  EXPECT_EQ(szp::encode_residuals<float>(r, Mode::lossy, h, body), 3u + 4 + 4 * 2);
  EXPECT_EQ(h, szp::lossy_outlier_header(3, 2));
  // Lossy f64 outlier cannot hold a first value of more than 4 bytes: plain it is.
  int64_t r64[kBlockValues] = {};
  r64[0] = int64_t(1) << 40;
  std::byte body64[szp::max_body_size<double>(Mode::lossy)];
  EXPECT_EQ(szp::encode_residuals<double>(r64, Mode::lossy, h, body64), 4u + 4 * 41);
  EXPECT_EQ(h, szp::plain_header(41));
}

TEST(SzpResiduals, RejectsRawAndInvalidHeaders) {
  std::byte body[300] = {};
  int32_t r[kBlockValues];
  EXPECT_FALSE(szp::decode_residuals<float>(szp::kRawHeader, Mode::lossy, body, r));
  EXPECT_FALSE(szp::decode_residuals<float>(0x21, Mode::lossy, body, r));
  EXPECT_FALSE(szp::decode_residuals<float>(0xC1, Mode::lossy, body, r));
  EXPECT_FALSE(szp::decode_residuals<float>(0x62, Mode::lossless, body, r));
}

TEST(SzpPlanes, SimdMatchesScalar) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    int width = int(rng() % 33);
    uint32_t mag[kBlockValues], back[kBlockValues], ref[kBlockValues];
    uint64_t mag64[kBlockValues], back64[kBlockValues], ref64[kBlockValues];
    int width64 = int(rng() % 65);
    for (size_t i = 0; i < kBlockValues; ++i) {
      mag[i] = width == 32 ? uint32_t(rng()) : uint32_t(rng()) & ((1u << width) - 1);
      mag64[i] = width64 == 64 ? rng() : rng() & ((uint64_t(1) << width64) - 1);
    }
    std::byte want[4 * 64], got[4 * 64];
    szp::detail::pack_planes_scalar(mag, width, want);
    szp::detail::unpack_planes_scalar(want, width, ref);
    ASSERT_EQ(std::memcmp(ref, mag, sizeof mag), 0);
    szp::detail::pack_planes_scalar(mag64, width64, want + 0);
    szp::detail::unpack_planes_scalar(want, width64, ref64);
    ASSERT_EQ(std::memcmp(ref64, mag64, sizeof mag64), 0);
    szp::detail::pack_planes_scalar(mag, width, want);
    szp::pack_planes(mag, width, got);
    ASSERT_EQ(std::memcmp(want, got, 4 * width), 0);
    szp::unpack_planes(got, width, back);
    ASSERT_EQ(std::memcmp(back, mag, sizeof mag), 0);
#if defined(__AVX2__)
    szp::detail::pack_planes_avx2(mag, width, got);
    ASSERT_EQ(std::memcmp(want, got, 4 * width), 0);
    szp::detail::unpack_planes_avx2(got, width, back);
    ASSERT_EQ(std::memcmp(back, mag, sizeof mag), 0);
#endif
#if defined(__AVX512F__)
    szp::detail::pack_planes_avx512(mag, width, got);
    ASSERT_EQ(std::memcmp(want, got, 4 * width), 0);
    szp::detail::unpack_planes_avx512(got, width, back);
    ASSERT_EQ(std::memcmp(back, mag, sizeof mag), 0);
#endif
    szp::detail::pack_planes_scalar(mag64, width64, want);
    szp::pack_planes(mag64, width64, got);
    ASSERT_EQ(std::memcmp(want, got, 4 * width64), 0);
    szp::unpack_planes(got, width64, back64);
    ASSERT_EQ(std::memcmp(back64, mag64, sizeof mag64), 0);
  }
}

// Blocks that exercise every path: smooth, noisy, constant, zeros, NaN/Inf, huge, tiny.
template <class T>
void random_block(std::mt19937_64& rng, T* x, double& eb) {
  std::normal_distribution<double> nd;
  int kind = int(rng() % 8);
  double scale = std::pow(10.0, double(rng() % 13) - 6.0);
  eb = std::pow(10.0, -double(rng() % 9)) * (rng() % 2 ? 1.0 : 0.37);
  double acc = nd(rng) * 1e3 * scale;
  for (size_t i = 0; i < kBlockValues; ++i) {
    acc += nd(rng) * scale;
    switch (kind) {
      case 0: x[i] = T(acc); break;
      case 1: x[i] = T(nd(rng) * scale); break;
      case 2: x[i] = T(3.5 * scale); break;
      case 3: x[i] = T(0); break;
      case 4: x[i] = i == 7 ? std::numeric_limits<T>::quiet_NaN() : T(acc); break;
      case 5: x[i] = T(acc * 1e30); break;
      case 6: x[i] = std::numeric_limits<T>::denorm_min() * T(i); break;
      default: x[i] = T(double(i) * eb * (rng() % 5));
    }
  }
}

template <class T>
void lossy_paths_agree() {
  std::mt19937_64 rng(3);
  std::vector<std::byte> a(szp::max_body_size<T>(Mode::lossy)), b(a.size());
  for (int trial = 0; trial < 6000; ++trial) {
    T x[kBlockValues], ya[kBlockValues], yb[kBlockValues];
    double eb;
    random_block(rng, x, eb);
    size_t valid = trial % 4 == 0 ? 1 + rng() % kBlockValues : kBlockValues;
    szp::LinearQuantizer<T> qz(eb);
    uint8_t ha = 0, hb = 0;
    size_t sa = szp::encode_lossy_block(x, valid, qz, ha, a.data());
    size_t sb = szp::encode_lossy_block_portable(x, valid, qz, hb, b.data());
    ASSERT_EQ(ha, hb) << "trial " << trial;
    ASSERT_EQ(sa, sb);
    ASSERT_EQ(std::memcmp(a.data(), b.data(), sa), 0);
    ASSERT_EQ(szp::body_size<T>(ha, valid, Mode::lossy), sa);
    ASSERT_LE(sa, valid * sizeof(T));
    szp::decode_lossy_block(ha, a.data(), valid, qz, ya);
    szp::decode_lossy_block_portable(ha, a.data(), valid, qz, yb);
    ASSERT_EQ(std::memcmp(ya, yb, valid * sizeof(T)), 0);
    for (size_t i = 0; i < valid; ++i) {
      if (std::isfinite(x[i]))
        ASSERT_LE(std::fabs(double(x[i]) - double(ya[i])), eb) << "trial " << trial;
      else
        ASSERT_EQ(std::memcmp(&x[i], &ya[i], sizeof(T)), 0);
    }
  }
}

TEST(SzpLossyBlock, SimdAndPortableAgreeF32) { lossy_paths_agree<float>(); }
TEST(SzpLossyBlock, SimdAndPortableAgreeF64) { lossy_paths_agree<double>(); }

// The quantizer the chunked codecs (szp-e, szp-eh) call gives the portable integers and verdict
// (f32: its AVX2 kernel where the library has one; f64 has no kernel, so no F64 case).
template <class T>
void quantizers_agree() {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 6000; ++trial) {
    T x[kBlockValues];
    double eb;
    random_block(rng, x, eb);
    const size_t valid = trial % 4 == 0 ? 1 + rng() % kBlockValues : kBlockValues;
    const szp::LinearQuantizer<T> qz(eb);
    Int<T> got[kBlockValues], want[kBlockValues];
    const bool ok = szp::quantize_block(x, valid, qz, got);
    ASSERT_EQ(ok, szp::portable::quantize_block(x, valid, qz, want)) << "trial " << trial;
    ASSERT_EQ(std::memcmp(got, want, sizeof(got)), 0) << "trial " << trial;
  }
}

TEST(SzpLossyBlock, QuantizerMatchesPortableF32) { quantizers_agree<float>(); }

// Decoders of arbitrary (valid-header) bodies agree too, including wrapped sums.
template <class T>
void decoders_agree_on_arbitrary_bodies() {
  std::mt19937_64 rng(9);
  std::vector<std::byte> body(szp::max_body_size<T>(Mode::lossless));
  szp::LinearQuantizer<T> qz(0.01);
  for (int trial = 0; trial < 3000; ++trial) {
    uint8_t h = uint8_t(rng());
    for (auto& c : body) c = std::byte(rng());
    size_t valid = trial % 3 == 0 ? 1 + rng() % kBlockValues : kBlockValues;
    T ya[kBlockValues], yb[kBlockValues];
    if (szp::parse_header<T>(h, Mode::lossy).kind != BlockKind::invalid) {
      szp::decode_lossy_block(h, body.data(), valid, qz, ya);
      szp::decode_lossy_block_portable(h, body.data(), valid, qz, yb);
      ASSERT_EQ(std::memcmp(ya, yb, valid * sizeof(T)), 0) << "lossy header " << int(h);
    }
    if (szp::parse_header<T>(h, Mode::lossless).kind != BlockKind::invalid) {
      szp::decode_lossless_block(h, body.data(), valid, ya);
      szp::decode_lossless_block_portable(h, body.data(), valid, yb);
      ASSERT_EQ(std::memcmp(ya, yb, valid * sizeof(T)), 0) << "lossless header " << int(h);
    }
  }
}

TEST(SzpBlock, DecodersAgreeOnArbitraryBodiesF32) { decoders_agree_on_arbitrary_bodies<float>(); }
TEST(SzpBlock, DecodersAgreeOnArbitraryBodiesF64) { decoders_agree_on_arbitrary_bodies<double>(); }

template <class T>
void quantizer_keeps_bound() {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    double eb = std::pow(10.0, -double(rng() % 40)) * (0.5 + u(rng));
    if (trial == 0) eb = 1e300;
    if (trial == 1) eb = std::numeric_limits<double>::denorm_min() * 3;
    szp::LinearQuantizer<T> qz(eb);
    for (int i = 0; i < 500; ++i) {
      // Half-way points are where rounding decides the error.
      T x = i % 2 ? T((double(rng() % 100000) + 0.5) * 2 * eb) : T(u(rng) * std::pow(2.0, double(rng() % 60) - 30));
      Int<T> q;
      if (qz.quantize(x, q)) {
        ASSERT_LE(std::fabs(double(x) - double(qz.reconstruct(q))), eb) << x << " eb " << eb;
        ASSERT_LT(q < 0 ? -q : q, szp::LinearQuantizer<T>::kLimit);
      }
    }
    Int<T> q;
    EXPECT_FALSE(qz.quantize(std::numeric_limits<T>::quiet_NaN(), q));
    EXPECT_FALSE(qz.quantize(std::numeric_limits<T>::infinity(), q));
  }
  // Values whose quotient leaves the integer range are refused, not wrapped.
  szp::LinearQuantizer<T> tiny(1e-30);
  Int<T> q;
  EXPECT_FALSE(tiny.quantize(T(1e6), q));
}

TEST(SzpQuantizer, AcceptsOnlyWhatIsWithinBoundF32) { quantizer_keeps_bound<float>(); }
TEST(SzpQuantizer, AcceptsOnlyWhatIsWithinBoundF64) { quantizer_keeps_bound<double>(); }

TEST(SzpOrderMap, BijectiveAndOrdered) {
  using M = szp::FloatOrderMap<float>;
  EXPECT_EQ(M::to_ordered(0.0f), 0);
  EXPECT_EQ(M::to_ordered(-0.0f), -1);
  EXPECT_LT(M::to_ordered(-1.0f), M::to_ordered(-0.5f));
  EXPECT_LT(M::to_ordered(0.5f), M::to_ordered(1.0f));
  EXPECT_LT(M::to_ordered(-std::numeric_limits<float>::denorm_min()), M::to_ordered(0.0f));
  std::mt19937 rng(1);
  for (int i = 0; i < 100000; ++i) {
    uint32_t bits = rng();
    float f = std::bit_cast<float>(bits);
    ASSERT_EQ(std::bit_cast<uint32_t>(M::from_ordered(M::to_ordered(f))), bits);
  }
  using D = szp::FloatOrderMap<double>;
  std::mt19937_64 rng64(2);
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = rng64();
    ASSERT_EQ(std::bit_cast<uint64_t>(D::from_ordered(D::to_ordered(std::bit_cast<double>(bits)))), bits);
  }
}

template <class T>
void lossless_block_bit_exact() {
  std::mt19937_64 rng(4);
  std::vector<std::byte> body(szp::max_body_size<T>(Mode::lossless)), portable(body.size());
  using U = typename szp::BlockTraits<T>::UInt;
  for (int trial = 0; trial < 4000; ++trial) {
    T x[kBlockValues], y[kBlockValues];
    double eb;
    if (trial % 3 == 0) {
      for (auto& v : x) v = std::bit_cast<T>(U(rng()));
    } else {
      random_block(rng, x, eb);
      if (trial % 5 == 0) x[3] = T(-0.0);
    }
    size_t valid = trial % 4 == 0 ? 1 + rng() % kBlockValues : kBlockValues;
    uint8_t h = 0, hp = 0;
    size_t s = szp::encode_lossless_block(x, valid, h, body.data());
    ASSERT_EQ(szp::body_size<T>(h, valid, Mode::lossless), s);
    ASSERT_LE(s, valid * sizeof(T));
    ASSERT_EQ(szp::encode_lossless_block_portable(x, valid, hp, portable.data()), s);
    ASSERT_EQ(hp, h);
    ASSERT_EQ(std::memcmp(body.data(), portable.data(), s), 0) << "trial " << trial;
    szp::decode_lossless_block(h, body.data(), valid, y);
    ASSERT_EQ(std::memcmp(x, y, valid * sizeof(T)), 0) << "trial " << trial;
    szp::decode_lossless_block_portable(h, body.data(), valid, y);
    ASSERT_EQ(std::memcmp(x, y, valid * sizeof(T)), 0) << "trial " << trial;
  }
}

TEST(SzpLosslessBlock, BitExactF32) { lossless_block_bit_exact<float>(); }
TEST(SzpLosslessBlock, BitExactF64) { lossless_block_bit_exact<double>(); }

TEST(SzpLayout, OffsetsFollowHeaders) {
  // Three blocks: zero, raw (partial last block of 3 values), plain w=2, built by hand.
  const size_t n = 67;
  std::vector<std::byte> payload = {std::byte{0x00}, std::byte{0x02}, std::byte{0xFF}};
  payload.resize(3 + 12 + 12, std::byte{0});
  std::vector<uint64_t> off;
  ASSERT_TRUE(szp::block_offsets<float>(payload, n, Mode::lossy, off).ok());
  EXPECT_EQ(off, (std::vector<uint64_t>{0, 0, 12, 24}));
  payload.push_back(std::byte{0});
  EXPECT_EQ(szp::block_offsets<float>(payload, n, Mode::lossy, off).code(),
            commpress::ErrorCode::corrupt_frame);
  payload.resize(2);
  EXPECT_EQ(szp::block_offsets<float>(payload, n, Mode::lossy, off).code(),
            commpress::ErrorCode::truncated);
  std::vector<std::byte> bad = {std::byte{0xC1}};
  EXPECT_EQ(szp::block_offsets<float>(bad, 5, Mode::lossy, off).code(),
            commpress::ErrorCode::corrupt_frame);
}

// szp-e's header runs (docs/format/szp-e.md, "Header runs"): the format's example both ways,
// and what a decoder must refuse, each next to the accepted spelling it differs from.
TEST(HeaderRuns, TheFormatsExampleAndItsRefusals) {
  const std::vector<uint8_t> headers = {0x00, 0x00, 0x00, 0x03, 0x00};
  std::vector<uint8_t> stream(szp::max_header_runs_size(headers.size()));
  stream.resize(szp::encode_header_runs(headers.data(), headers.size(), stream.data()));
  EXPECT_EQ(stream, (std::vector<uint8_t>{0x00, 0x03, 0x03, 0x00, 0x01}));
  auto decodes = [](std::vector<uint8_t> in, size_t nb) {
    std::vector<uint8_t> h(nb);
    return szp::decode_header_runs(in.data(), in.size(), h.data(), nb) ? h : std::vector<uint8_t>{};
  };
  EXPECT_EQ(decodes(stream, 5), headers);
  // A run of 130 blocks: two bytes, the first with its high bit set.
  EXPECT_EQ(decodes({0x00, 0x82, 0x01}, 130), std::vector<uint8_t>(130, 0x00));
  EXPECT_TRUE(decodes({0x00, 0x83, 0x00, 0x03, 0x00, 0x01}, 5).empty()) << "3 spelled long";
  EXPECT_TRUE(decodes({0x00, 0x00, 0x03, 0x00, 0x01}, 5).empty()) << "a run of 0";
  EXPECT_TRUE(decodes({0x00, 0x04, 0x03, 0x00, 0x01}, 5).empty()) << "past the last block";
  EXPECT_TRUE(decodes({0x00, 0x03, 0x03, 0x00}, 5).empty()) << "ends inside a length";
  EXPECT_TRUE(decodes({0x00, 0x03, 0x03, 0x00, 0x01, 0x03}, 5).empty()) << "a byte after";
}

}  // namespace
