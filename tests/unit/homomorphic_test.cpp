// Homomorphic sums of szp frames: exactness against the quantized arithmetic, error bounds of
// chains, the fused local + frame path, refusals, overflow fallbacks, thread independence,
// and the SIMD residual kernels against the portable szp primitives.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/format/frame_header.hpp"
#include "codec/homomorphic/quantized_ops.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
namespace hm = commpress::codec::homomorphic;
using commpress::ErrorCode;
using commpress::testing::Shape;
using Bytes = std::vector<std::byte>;

namespace {

constexpr auto kSum = cc::CombineOp::sum;

template <class T>
Bytes compress(const std::vector<T>& x, double eb) {
  const cc::Codec* szp_codec = cc::find_codec("szp");
  EXPECT_NE(szp_codec, nullptr);
  Bytes f;
  auto st = szp_codec->compress(x.data(), x.size(), cc::dtype_of<T>(), cc::ErrorBound::absolute(eb), f);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return f;
}

template <class T>
std::vector<T> decode(const Bytes& frame) {
  auto info = cc::inspect(frame);
  EXPECT_TRUE(info.ok()) << info.status().to_string();
  std::vector<T> y(info.ok() ? info->count : 0);
  auto st = cc::decompress(frame, std::span<T>(y));
  EXPECT_TRUE(st.ok()) << st.to_string();
  return y;
}

// The block header bytes of an szp frame's payload.
std::vector<uint8_t> block_headers(const Bytes& frame) {
  auto info = cc::inspect(frame);
  size_t nb = szp::block_count(info->count);
  std::vector<uint8_t> h(nb);
  if (nb) std::memcpy(h.data(), frame.data() + cc::kFrameHeaderSize, nb);
  return h;
}

Bytes combined(const Bytes& a, const Bytes& b) {
  Bytes out;
  auto st = cc::combine(a, b, kSum, out);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
// Equal bits, or both NaN (which payload a NaN sum keeps is the hardware's business).
template <class T>
bool same_value(T a, T b) {
  return same_bits(a, b) || (std::isnan(a) && std::isnan(b));
}

std::vector<size_t> test_sizes() {
  auto s = commpress::testing::awkward_sizes();
  s.push_back(99991);  // prime, ~1e5
  return s;
}

const std::vector<Shape>& test_shapes() {
  static const std::vector<Shape> s = {Shape::random_walk, Shape::gaussian, Shape::sparse,
                                       Shape::zeros,       Shape::constant, Shape::nonfinite,
                                       Shape::huge_range,  Shape::denormals, Shape::smooth3d};
  return s;
}

// What combine must produce, block by block: a zero block leaves the other block as it is;
// two quantized blocks give T(qa + qb) * step exactly unless some lane's sum leaves the
// quantizer's range; everything else is the floating-point sum of the decoded inputs.
template <class T>
void expect_exact_sum(const std::vector<T>& xa, const std::vector<T>& xb, double eb) {
  using Int = szp::IntOf<T>;
  const Bytes fa = compress(xa, eb), fb = compress(xb, eb);
  const Bytes out = combined(fa, fb);
  auto info = cc::inspect(out);
  ASSERT_TRUE(info.ok()) << info.status().to_string();
  EXPECT_EQ(info->codec, cc::CodecId::szp);
  EXPECT_EQ(info->count, xa.size());
  EXPECT_EQ(cc::summed_inputs(*info), 2u);
  EXPECT_TRUE(same_bits(info->abs_bound, eb));
  // A valid layout, and like the encoder never a body larger than the block's raw values.
  std::vector<uint64_t> offsets;
  auto layout = szp::block_offsets<T>(std::span<const std::byte>(out).subspan(cc::kFrameHeaderSize),
                                      xa.size(), szp::Mode::lossy, offsets);
  ASSERT_TRUE(layout.ok()) << layout.to_string();
  for (size_t b = 0; b + 1 < offsets.size(); ++b)
    ASSERT_LE(offsets[b + 1] - offsets[b], szp::valid_in_block(xa.size(), b) * sizeof(T)) << b;
  const auto ya = decode<T>(fa), yb = decode<T>(fb), ys = decode<T>(out);
  const auto ha = block_headers(fa), hb = block_headers(fb);
  const szp::LinearQuantizer<T> qz(eb);
  const size_t n = xa.size();
  for (size_t b = 0; b < szp::block_count(n); ++b) {
    const size_t lo = b * szp::kBlockValues, hi = lo + szp::valid_in_block(n, b);
    SCOPED_TRACE("block " + std::to_string(b) + " headers " + std::to_string(ha[b]) + "+" +
                 std::to_string(hb[b]));
    if (ha[b] == szp::kZeroHeader || hb[b] == szp::kZeroHeader) {
      const auto& other = ha[b] == szp::kZeroHeader ? yb : ya;
      for (size_t i = lo; i < hi; ++i) ASSERT_TRUE(same_bits(ys[i], other[i])) << i;
      continue;
    }
    bool quantized = ha[b] != szp::kRawHeader && hb[b] != szp::kRawHeader;
    std::vector<Int> qs(hi - lo);
    for (size_t i = lo; quantized && i < hi; ++i) {
      Int qa, qb;
      // The encoder's integers: a block is coded only when all its values quantize.
      ASSERT_TRUE(qz.quantize(xa[i], qa));
      ASSERT_TRUE(qz.quantize(xb[i], qb));
      ASSERT_TRUE(same_bits(qz.reconstruct(qa), ya[i]));
      ASSERT_TRUE(same_bits(qz.reconstruct(qb), yb[i]));
      qs[i - lo] = qa + qb;  // |qa|, |qb| < 2^(bits-2): no overflow
      if (qs[i - lo] >= szp::LinearQuantizer<T>::kLimit ||
          qs[i - lo] <= -szp::LinearQuantizer<T>::kLimit)
        quantized = false;
    }
    for (size_t i = lo; i < hi; ++i) {
      if (quantized)
        ASSERT_TRUE(same_bits(ys[i], qz.reconstruct(qs[i - lo])))
            << i << ": " << ys[i] << " vs " << qz.reconstruct(qs[i - lo]);
      else
        ASSERT_TRUE(same_value(ys[i], T(ya[i] + yb[i]))) << i << ": " << ys[i] << " vs " << ya[i] + yb[i];
    }
  }
}

template <class T>
void exact_sums_everywhere() {
  for (Shape shape : test_shapes()) {
    for (size_t n : test_sizes()) {
      for (uint64_t seed = 0; seed < 2; ++seed) {
        SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n) +
                     " seed=" + std::to_string(seed));
        auto xa = commpress::testing::make_data<T>(shape, n, 2 * seed);
        auto xb = commpress::testing::make_data<T>(shape, n, 2 * seed + 1);
        for (double eb : {1e-3, 0.37}) expect_exact_sum(xa, xb, eb);
        // Mixed shapes: zero blocks against coded ones, raw against coded.
        auto xc = commpress::testing::make_data<T>(Shape::sparse, n, seed + 7);
        expect_exact_sum(xa, xc, 0.05);
      }
    }
  }
}

TEST(HomomorphicCombine, ExactQuantizedSumF32) { exact_sums_everywhere<float>(); }
TEST(HomomorphicCombine, ExactQuantizedSumF64) { exact_sums_everywhere<double>(); }

// k inputs summed by a chain of combines stay within k * eb of the exact sum, plus rounding:
// u = unit roundoff of T, at most (k + 4) u per unit of sum(|x_i| + eb) (docs/format/
// homomorphic.md derives the bound).
template <class T>
void chains_stay_within_bound() {
  const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
  for (Shape shape : {Shape::random_walk, Shape::gaussian, Shape::sparse, Shape::huge_range,
                      Shape::nonfinite, Shape::constant}) {
    for (size_t n : {size_t(1), size_t(33), size_t(1021), size_t(20000)}) {
      std::vector<std::vector<T>> x;
      std::vector<Bytes> f;
      const double eb = 0.01;
      for (size_t k = 1; k <= 9; ++k) {
        SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n) +
                     " k=" + std::to_string(k));
        x.push_back(commpress::testing::make_data<T>(shape, n, 100 + k));
        f.push_back(compress(x.back(), eb));
        // Left fold for even k, a balanced tree for odd k: both orders must hold the bound.
        Bytes acc;
        if (k % 2 == 0) {
          acc = f[0];
          for (size_t j = 1; j < k; ++j) acc = combined(acc, f[j]);
        } else {
          std::vector<Bytes> level = f;
          while (level.size() > 1) {
            std::vector<Bytes> next;
            for (size_t j = 0; j + 1 < level.size(); j += 2) next.push_back(combined(level[j], level[j + 1]));
            if (level.size() % 2) next.push_back(level.back());
            level = next;
          }
          acc = level[0];
        }
        auto info = cc::inspect(acc);
        ASSERT_TRUE(info.ok());
        EXPECT_EQ(cc::summed_inputs(*info), k);
        auto y = decode<T>(acc);
        for (size_t i = 0; i < n; ++i) {
          long double exact = 0, magnitude = 0;
          bool finite = true;
          for (size_t j = 0; j < k; ++j) {
            finite &= std::isfinite(x[j][i]);
            exact += x[j][i];
            magnitude += std::fabs((long double)x[j][i]) + eb;
          }
          if (!finite) continue;
          const long double tol = k * eb + (k + 4) * u * magnitude;
          ASSERT_LE(std::fabs((long double)y[i] - exact), tol)
              << "element " << i << ": " << y[i] << " vs exact " << double(exact);
        }
      }
    }
  }
}

TEST(HomomorphicCombine, ChainsStayWithinKTimesBoundF32) { chains_stay_within_bound<float>(); }
TEST(HomomorphicCombine, ChainsStayWithinKTimesBoundF64) { chains_stay_within_bound<double>(); }

// combine_raw(local, frame) is combine(compress(local), frame), byte for byte, whatever local
// holds (clean values, NaN/Inf, values out of the quantizer's range).
template <class T>
void combine_raw_matches_combine() {
  for (Shape shape : test_shapes()) {
    for (size_t n : test_sizes()) {
      SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n));
      auto local = commpress::testing::make_data<T>(shape, n, 3);
      auto remote = commpress::testing::make_data<T>(Shape::random_walk, n, 4);
      for (double eb : {1e-4, 0.2}) {
        const Bytes frame = compress(remote, eb);
        Bytes fused, reference;
        auto st = cc::combine_raw(std::span<const T>(local), frame, kSum, fused);
        ASSERT_TRUE(st.ok()) << st.to_string();
        ASSERT_TRUE(cc::combine(compress(local, eb), frame, kSum, reference).ok());
        ASSERT_EQ(fused, reference);
      }
    }
  }
}

TEST(HomomorphicCombineRaw, EqualsCombineOfCompressedF32) { combine_raw_matches_combine<float>(); }
TEST(HomomorphicCombineRaw, EqualsCombineOfCompressedF64) { combine_raw_matches_combine<double>(); }

TEST(HomomorphicCombineRaw, CountsOneMoreInput) {
  std::vector<double> x = commpress::testing::make_data<double>(Shape::gaussian, 500, 1);
  Bytes f = combined(compress(x, 0.1), compress(x, 0.1));
  Bytes out;
  ASSERT_TRUE(cc::combine_raw(std::span<const double>(x), f, kSum, out).ok());
  EXPECT_EQ(cc::summed_inputs(*cc::inspect(out)), 3u);
  auto y = decode<double>(out);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], 3 * x[i], 3 * 0.1 + 1e-12);
}

// --- refusals ------------------------------------------------------------------------------

void expect_refused(const commpress::Status& st, ErrorCode code,
                    std::initializer_list<std::string> mentions) {
  EXPECT_EQ(st.code(), code) << st.to_string();
  for (const auto& m : mentions) EXPECT_NE(st.message().find(m), std::string::npos) << st.to_string();
}

TEST(HomomorphicRefusals, MismatchedOperands) {
  auto x32 = commpress::testing::make_data<float>(Shape::gaussian, 100, 1);
  auto x64 = commpress::testing::make_data<double>(Shape::gaussian, 100, 1);
  auto y32 = commpress::testing::make_data<float>(Shape::gaussian, 101, 1);
  Bytes a = compress(x32, 1e-3), out = {std::byte{7}};
  double next = std::nextafter(1e-3, 1.0);
  expect_refused(cc::combine(a, compress(x32, next), kSum, out), ErrorCode::mismatch,
                 {"abs_bound", "0.001 ", "0.0010000000000000002"});
  expect_refused(cc::combine(a, compress(x64, 1e-3), kSum, out), ErrorCode::mismatch,
                 {"dtype", "f32", "f64"});
  expect_refused(cc::combine(a, compress(y32, 1e-3), kSum, out), ErrorCode::mismatch,
                 {"count", "100", "101"});
  // Not szp: lossless codecs and szp-lossless.
  for (const char* name : {"raw", "szp-lossless"}) {
    Bytes other;
    ASSERT_TRUE(cc::find_codec(name)->compress(x32.data(), x32.size(), cc::Dtype::f32,
                                               cc::ErrorBound::lossless(), other).ok());
    expect_refused(cc::combine(a, other, kSum, out), ErrorCode::mismatch, {"second frame", "codec id"});
    expect_refused(cc::combine(other, a, kSum, out), ErrorCode::mismatch, {"first frame"});
    expect_refused(cc::combine_raw(std::span<const float>(x32), other, kSum, out), ErrorCode::mismatch,
                   {"codec id"});
  }
  // combine_raw: the local array must match the frame.
  expect_refused(cc::combine_raw(std::span<const double>(x64), a, kSum, out), ErrorCode::mismatch,
                 {"dtype", "f64", "f32"});
  expect_refused(cc::combine_raw(std::span<const float>(y32), a, kSum, out), ErrorCode::mismatch,
                 {"count", "101", "100"});
  expect_refused(cc::combine_raw(nullptr, 100, cc::Dtype::f32, a, kSum, out),
                 ErrorCode::invalid_argument, {"null"});
  expect_refused(cc::combine(a, a, cc::CombineOp(9), out), ErrorCode::invalid_argument, {"9"});
  EXPECT_EQ(out.size(), 1u);  // refusals leave out alone
}

TEST(HomomorphicRefusals, CorruptAndTruncatedFrames) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 1000, 2);
  Bytes a = compress(x, 1e-2), out;
  Bytes flipped = a;
  flipped[flipped.size() / 2] ^= std::byte{0x10};
  expect_refused(cc::combine(a, flipped, kSum, out), ErrorCode::checksum_mismatch, {"second frame"});
  Bytes cut(a.begin(), a.end() - 3);
  expect_refused(cc::combine(cut, a, kSum, out), ErrorCode::truncated, {"first frame"});
  expect_refused(cc::combine_raw(std::span<const float>(x), cut, kSum, out), ErrorCode::truncated, {"frame"});
}

// A frame whose checksum was recomputed over corrupt payload bytes: the layout checks, not the
// checksum, must catch it.
Bytes forge(const Bytes& frame, size_t payload_offset, std::byte value, size_t drop = 0) {
  auto info = *cc::inspect(frame);
  Bytes f(frame.begin(), frame.end() - drop);
  if (payload_offset < f.size() - cc::kFrameHeaderSize) f[cc::kFrameHeaderSize + payload_offset] = value;
  info.payload_size = f.size() - cc::kFrameHeaderSize;
  cc::detail::write_frame_header(info, std::span<const std::byte>(f).subspan(cc::kFrameHeaderSize), f.data());
  return f;
}

TEST(HomomorphicRefusals, ForgedPayloads) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 1000, 2);
  Bytes a = compress(x, 1e-2), out;
  expect_refused(cc::combine(a, forge(a, 5, std::byte{0xC5}), kSum, out), ErrorCode::corrupt_frame,
                 {"second frame", "invalid header byte 197"});
  expect_refused(cc::combine(forge(a, 0, std::byte{0x00}), a, kSum, out), ErrorCode::corrupt_frame,
                 {"first frame", "bytes"});
  expect_refused(cc::combine(a, forge(a, SIZE_MAX, std::byte{0}, 1), kSum, out),
                 ErrorCode::corrupt_frame, {"second frame"});
  expect_refused(cc::combine_raw(std::span<const float>(x), forge(a, 3, std::byte{0xFE}), kSum, out),
                 ErrorCode::corrupt_frame, {"frame", "254"});
}

// Random payload damage behind a valid checksum: every call either refuses with corrupt_frame
// or returns a frame that decodes (run under the sanitizers, this is also a bounds check).
TEST(HomomorphicRefusals, RandomlyForgedPayloadsNeverMisread) {
  std::mt19937_64 rng(12);
  auto x = commpress::testing::make_data<double>(Shape::random_walk, 700, 3);
  auto y = commpress::testing::make_data<double>(Shape::nonfinite, 700, 4);
  const Bytes a = compress(x, 1e-3), b = compress(y, 1e-3);
  for (int trial = 0; trial < 3000; ++trial) {
    const Bytes& base = trial % 2 ? a : b;
    const size_t payload = base.size() - cc::kFrameHeaderSize;
    Bytes f = forge(base, rng() % payload, std::byte(rng()), trial % 5 == 0 ? 1 + rng() % 4 : 0);
    if (trial % 3 == 0) f = forge(f, rng() % (f.size() - cc::kFrameHeaderSize), std::byte(rng()));
    Bytes out;
    for (auto st : {cc::combine(a, f, kSum, out), cc::combine(f, b, kSum, out),
                    cc::combine_raw(std::span<const double>(x), f, kSum, out)}) {
      if (!st.ok()) {
        ASSERT_EQ(st.code(), ErrorCode::corrupt_frame) << st.to_string();
        continue;
      }
      std::vector<double> back(700);
      ASSERT_TRUE(cc::decompress(out, std::span<double>(back)).ok());
    }
  }
}

TEST(HomomorphicRefusals, InputCountOverflow) {
  auto x = commpress::testing::make_data<float>(Shape::gaussian, 64, 2);
  Bytes a = compress(x, 1e-2);
  auto info = *cc::inspect(a);
  info.param = UINT32_MAX;
  Bytes big = a;
  cc::detail::write_frame_header(info, std::span<const std::byte>(big).subspan(cc::kFrameHeaderSize), big.data());
  Bytes out;
  expect_refused(cc::combine(big, a, kSum, out), ErrorCode::overflow, {"4294967296"});
  expect_refused(cc::combine_raw(std::span<const float>(x), big, kSum, out), ErrorCode::overflow, {});
  info.param = UINT32_MAX - 1;
  cc::detail::write_frame_header(info, std::span<const std::byte>(big).subspan(cc::kFrameHeaderSize), big.data());
  ASSERT_TRUE(cc::combine(big, a, kSum, out).ok());
  EXPECT_EQ(cc::summed_inputs(*cc::inspect(out)), UINT32_MAX);
}

// --- overflow of the quantized integers ----------------------------------------------------

// Values that quantize exactly to q (power-of-two step) so the quantizer accepts them even
// near its limit; sums past the limit must fall back to the floating-point sum, never wrap.
template <class T>
void sums_near_the_limit_fall_back() {
  using Int = szp::IntOf<T>;
  constexpr Int lim = szp::LinearQuantizer<T>::kLimit;
  const double eb = 0.5;  // step 1
  const size_t n = 4 * szp::kBlockValues;  // full blocks: a short one would be stored raw
  std::vector<T> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t blk = i / szp::kBlockValues;
    const Int jitter = Int(i % 4) * 1024;  // multiples of 1024: exact in f32 near 2^30
    // block 0: sums just below the limit; block 1: one lane past it; blocks 2-3: all past it,
    // with both signs. Residuals stay narrow enough that every input block is coded.
    const Int qa = blk == 0 ? lim / 2 - 4096 + jitter : (lim / 4) * 3 - jitter;
    const Int qb = blk != 1 ? qa : (i % szp::kBlockValues == 9 ? lim / 2 : lim / 8);
    const T sign = blk == 3 ? T(-1) : T(1);
    a[i] = sign * T(qa);
    b[i] = sign * T(qb);
  }
  const Bytes fa = compress(a, eb), fb = compress(b, eb);
  for (uint8_t h : block_headers(fa)) ASSERT_NE(h, szp::kRawHeader) << "setup: inputs must be coded";
  for (uint8_t h : block_headers(fb)) ASSERT_NE(h, szp::kRawHeader) << "setup: inputs must be coded";
  const Bytes out = combined(fa, fb);
  const auto hs = block_headers(out);
  EXPECT_NE(hs[0], szp::kRawHeader);  // below the limit: still quantized
  for (size_t blk = 1; blk < hs.size(); ++blk) EXPECT_EQ(hs[blk], szp::kRawHeader) << blk;
  auto y = decode<T>(out);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(y[i], T(a[i] + b[i])) << i;  // exact here: the values are small integers times 2^k
    ASSERT_EQ(std::signbit(y[i]), std::signbit(a[i])) << i;
  }
  // And combine_raw takes the same road.
  Bytes fused;
  ASSERT_TRUE(cc::combine_raw(std::span<const T>(a), fb, kSum, fused).ok());
  EXPECT_EQ(fused, out);
}

TEST(HomomorphicOverflow, FallsBackToRawSumsF32) { sums_near_the_limit_fall_back<float>(); }
TEST(HomomorphicOverflow, FallsBackToRawSumsF64) { sums_near_the_limit_fall_back<double>(); }

// --- structure -----------------------------------------------------------------------------

TEST(HomomorphicCombine, ZeroBlocksCopyTheOtherBlock) {
  const size_t n = 40 * szp::kBlockValues;
  auto x = commpress::testing::make_data<float>(Shape::random_walk, n, 5);
  std::vector<float> z(n, 0.0f);
  for (size_t i = 0; i < n; i += 2 * szp::kBlockValues) z[i] = 1.0f;  // every other block zero
  const Bytes fx = compress(x, 1e-3), fz = compress(z, 1e-3);
  const Bytes out = combined(fz, fx);
  const auto hx = block_headers(fx), hz = block_headers(fz), hs = block_headers(out);
  size_t copied = 0;
  for (size_t b = 0; b < hs.size(); ++b)
    if (hz[b] == szp::kZeroHeader) {
      EXPECT_EQ(hs[b], hx[b]);
      ++copied;
    }
  EXPECT_EQ(copied, hs.size() / 2);
  // Zero + zero is zero; an empty array gives an empty payload.
  const Bytes zz = combined(compress(std::vector<float>(n, 0.0f), 1e-3), compress(std::vector<float>(n, 0.0f), 1e-3));
  for (uint8_t h : block_headers(zz)) EXPECT_EQ(h, szp::kZeroHeader);
  EXPECT_EQ(cc::inspect(zz)->payload_size, szp::block_count(n));
  const Bytes empty = combined(compress(std::vector<float>{}, 1e-3), compress(std::vector<float>{}, 1e-3));
  EXPECT_EQ(cc::inspect(empty)->payload_size, 0u);
}

// A NaN in a raw block sums to the one quiet NaN, whatever payload the operand carried: the
// hardware decides NaN payloads (a GPU writes its own), and frames must not depend on it.
TEST(HomomorphicCombine, NaNSumsAreTheQuietNaN) {
  const size_t n = 3 * szp::kBlockValues;
  auto x = commpress::testing::make_data<float>(Shape::random_walk, n, 8);
  const uint32_t payload_nan = 0x7fc01234u;
  std::memcpy(&x[szp::kBlockValues + 5], &payload_nan, 4);  // block 1 goes raw
  const auto y = commpress::testing::make_data<float>(Shape::random_walk, n, 9);
  std::vector<float> sum(n);
  ASSERT_TRUE(cc::decompress(combined(compress(x, 1e-3), compress(y, 1e-3)), std::span<float>(sum)).ok());
  uint32_t bits = 0;
  std::memcpy(&bits, &sum[szp::kBlockValues + 5], 4);
  const float quiet = std::numeric_limits<float>::quiet_NaN();
  uint32_t quiet_bits = 0;
  std::memcpy(&quiet_bits, &quiet, 4);
  EXPECT_EQ(bits, quiet_bits);
}

TEST(HomomorphicCombine, OutputMayBeAnOperandsStorage) {
  auto x = commpress::testing::make_data<double>(Shape::random_walk, 5000, 5);
  Bytes acc = compress(x, 1e-2);
  const Bytes f = acc;
  const Bytes expect = combined(f, f);
  ASSERT_TRUE(cc::combine(acc, f, kSum, acc).ok());
  EXPECT_EQ(acc, expect);
  Bytes acc2 = f;
  ASSERT_TRUE(cc::combine_raw(std::span<const double>(x), acc2, kSum, acc2).ok());
  Bytes expect2;
  ASSERT_TRUE(cc::combine_raw(std::span<const double>(x), f, kSum, expect2).ok());
  EXPECT_EQ(acc2, expect2);
}

TEST(HomomorphicCombine, RelativeAndAbsoluteFramesWithTheSameBound) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, 3000, 8);
  Bytes rel;
  ASSERT_TRUE(cc::find_codec("szp")->compress(x.data(), x.size(), cc::Dtype::f32, cc::ErrorBound::relative(1e-4), rel).ok());
  auto info = *cc::inspect(rel);
  const Bytes out = combined(rel, compress(x, info.abs_bound));
  auto r = *cc::inspect(out);
  EXPECT_EQ(r.mode, cc::BoundMode::abs);
  EXPECT_TRUE(same_bits(r.abs_bound, info.abs_bound));
  const Bytes same = combined(rel, rel);
  EXPECT_EQ(cc::inspect(same)->mode, cc::BoundMode::rel);
  EXPECT_EQ(cc::inspect(same)->requested_bound, 1e-4);
}

TEST(HomomorphicCombine, BytesIndependentOfThreadCount) {
  const size_t n = 7000 * szp::kBlockValues + 13;  // enough blocks for three threads
  std::vector<Bytes> results;
  std::vector<float> a = commpress::testing::make_data<float>(Shape::random_walk, n, 1);
  std::vector<float> b = commpress::testing::make_data<float>(Shape::sparse, n, 2);
  for (size_t i = 0; i < n; i += 977) a[i] = std::numeric_limits<float>::quiet_NaN();
  const Bytes fa = compress(a, 1e-2), fb = compress(b, 1e-2);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    Bytes c, r;
    ASSERT_TRUE(cc::combine(fa, fb, kSum, c).ok());
    ASSERT_TRUE(cc::combine_raw(std::span<const float>(b), fa, kSum, r).ok());
    results.push_back(c);
    results.push_back(r);
  }
  omp_set_num_threads(saved);
  for (size_t i = 2; i < results.size(); ++i) EXPECT_EQ(results[i], results[i % 2]) << i;
}

// --- kernels -------------------------------------------------------------------------------

// Random residuals of every shape the coder meets, and the portable primitives as reference.
template <class T>
void kernels_match_portable() {
  using Int = szp::IntOf<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  std::mt19937_64 rng(77);
  std::vector<std::byte> want(szp::max_body_size<T>(szp::Mode::lossy)), got(want.size());
  for (int trial = 0; trial < 20000; ++trial) {
    Int r[szp::kBlockValues], back[szp::kBlockValues], ref[szp::kBlockValues];
    const int width = int(rng() % (sizeof(T) * 8 + 1));
    const U mask = width >= int(sizeof(U) * 8) ? ~U(0) : (U(1) << width) - 1;
    for (auto& v : r) v = Int((rng() & 1) ? U(0) - (U(rng()) & mask) : (U(rng()) & mask));
    if (trial % 3 == 0) r[0] = Int(rng() >> (rng() % 64));
    if (trial % 5 == 0) std::fill(r + 1, r + szp::kBlockValues, Int(0));
    if (trial % 11 == 0) std::fill(r, r + szp::kBlockValues, Int(0));
    uint8_t hw = 0, hg = 1;
    const size_t sw = szp::encode_residuals<T>(r, szp::Mode::lossy, hw, want.data());
    const size_t sg = hm::encode_r<T>(r, hg, got.data());
    ASSERT_EQ(hw, hg) << trial;
    ASSERT_EQ(sw, sg) << trial;
    ASSERT_EQ(std::memcmp(want.data(), got.data(), sw), 0) << trial;
    ASSERT_TRUE(szp::decode_residuals<T>(hw, szp::Mode::lossy, {want.data(), sw}, ref));
    hm::decode_r<T>(hw, want.data(), sw, back);
    ASSERT_EQ(std::memcmp(ref, back, sizeof ref), 0) << trial;
  }
  // Quantization: every kind of block value, full and partial blocks.
  for (int trial = 0; trial < 5000; ++trial) {
    T x[szp::kBlockValues];
    const double eb = std::pow(10.0, -double(rng() % 8)) * 0.7;
    const double scale = std::pow(10.0, double(rng() % 16) - 4.0);
    std::normal_distribution<double> nd;
    for (auto& v : x) v = T(nd(rng) * scale);
    if (trial % 13 == 0) x[rng() % szp::kBlockValues] = std::numeric_limits<T>::infinity();
    const size_t valid = trial % 4 == 0 ? 1 + rng() % szp::kBlockValues : szp::kBlockValues;
    const szp::LinearQuantizer<T> qz(eb);
    Int q_ref[szp::kBlockValues], r_ref[szp::kBlockValues], q[szp::kBlockValues], r[szp::kBlockValues];
    U or_q = 0, or_r = 0;
    const bool ok_ref = szp::quantize_block(x, valid, qz, q_ref);
    const bool ok = hm::quantize_qr<T>(x, valid, qz, q, r, or_q, or_r);
    ASSERT_EQ(ok, ok_ref) << trial;
    if (!ok) continue;
    szp::LorenzoPredictor::forward(q_ref, r_ref);
    ASSERT_EQ(std::memcmp(q, q_ref, sizeof q), 0) << trial;
    ASSERT_EQ(std::memcmp(r, r_ref, sizeof r), 0) << trial;
    U want_q = 0, want_r = 0;
    for (size_t i = 0; i < szp::kBlockValues; ++i) {
      want_q |= szp::FixedLengthEncoder::magnitude(q_ref[i]);
      want_r |= szp::FixedLengthEncoder::magnitude(r_ref[i]);
    }
    ASSERT_EQ(or_q, want_q);
    ASSERT_EQ(or_r, want_r);
  }
}

#if COMMPRESS_HOMOMORPHIC_AVX512
// The register-level encoder, whose narrow path (lanes 1..31 below 2^8) works by plane
// transposes: same bytes as the portable encoder for every lane-0 value and width.
template <class T>
void bounded_encoder_matches_portable() {
  using Int = szp::IntOf<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  using L = szp::detail::Lanes<T>;
  std::mt19937_64 rng(78);
  std::vector<std::byte> want(szp::max_body_size<T>(szp::Mode::lossy)), got(want.size());
  for (int trial = 0; trial < 40000; ++trial) {
    Int r[szp::kBlockValues];
    const int width = int(rng() % 11);  // around the narrow limit
    const U mask = (U(1) << width) - 1;
    for (auto& v : r) v = Int((rng() & 1) ? U(0) - (U(rng()) & mask) : (U(rng()) & mask));
    const int first_bits = int(rng() % (sizeof(T) * 8));
    r[0] = Int(rng() & ((U(1) << first_bits) - 1)) * ((rng() & 1) ? -1 : 1);
    if (trial % 7 == 0) std::fill(r + 1, r + szp::kBlockValues, Int(0));
    __m512i v[L::kVectors];
    for (int g = 0; g < L::kVectors; ++g) v[g] = _mm512_loadu_si512(r + g * L::kPerVector);
    uint8_t hw = 0, hg = 1;
    const size_t sw = szp::encode_residuals<T>(r, szp::Mode::lossy, hw, want.data());
    const size_t sg = hm::detail::encode_bounded_vectors<T>(v, hg, got.data());
    ASSERT_EQ(hw, hg) << trial;
    ASSERT_EQ(sw, sg) << trial;
    ASSERT_EQ(std::memcmp(want.data(), got.data(), sw), 0) << trial;
  }
}
TEST(HomomorphicKernels, BoundedEncoderMatchesPortableF32) { bounded_encoder_matches_portable<float>(); }
TEST(HomomorphicKernels, BoundedEncoderMatchesPortableF64) { bounded_encoder_matches_portable<double>(); }
#endif

TEST(HomomorphicKernels, MatchPortablePrimitivesF32) { kernels_match_portable<float>(); }
TEST(HomomorphicKernels, MatchPortablePrimitivesF64) { kernels_match_portable<double>(); }

// The header-only bound on |q| must hold for every block the encoder writes.
template <class T>
void q_bits_bound_holds() {
  using Int = szp::IntOf<T>;
  std::mt19937_64 rng(9);
  std::vector<std::byte> body(szp::max_body_size<T>(szp::Mode::lossy));
  for (int trial = 0; trial < 20000; ++trial) {
    Int q[szp::kBlockValues], r[szp::kBlockValues];
    const int bits = int(rng() % (szp::BlockTraits<T>::kBits - 2));
    const Int span = Int(1) << bits;
    for (auto& v : q) v = Int(rng() % uint64_t(2 * span)) - span + (trial % 2 ? 0 : Int(rng() % 3));
    for (auto& v : q) v = std::clamp<Int>(v, -szp::LinearQuantizer<T>::kLimit + 1, szp::LinearQuantizer<T>::kLimit - 1);
    szp::LorenzoPredictor::forward(q, r);
    uint8_t h;
    szp::encode_residuals<T>(r, szp::Mode::lossy, h, body.data());
    const int e = hm::kQBits<T>[h];
    if (e >= szp::BlockTraits<T>::kBits) continue;  // no information: the exact check runs
    for (Int v : q)
      ASSERT_LT(szp::FixedLengthEncoder::magnitude(v), typename szp::BlockTraits<T>::UInt(1) << e)
          << int(h);
  }
}

TEST(HomomorphicKernels, HeaderBoundOnQuantizedValuesF32) { q_bits_bound_holds<float>(); }
TEST(HomomorphicKernels, HeaderBoundOnQuantizedValuesF64) { q_bits_bound_holds<double>(); }

}  // namespace
