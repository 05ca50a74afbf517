// "szp-lossless": every bit pattern comes back exactly (NaN payloads, -0.0, denormals,
// random bits), frames do not depend on the thread count, and smooth data compresses.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::testing::Shape;

namespace {

const cc::Codec& codec() {
  const cc::Codec* c = cc::find_codec("szp-lossless");
  EXPECT_NE(c, nullptr);
  return *c;
}

template <class T>
void expect_bit_exact(const std::vector<T>& x, const std::string& what) {
  auto frame = codec().compress(std::span<const T>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(frame.ok()) << what << ": " << frame.status().to_string();
  ASSERT_LE(frame->size(), codec().compress_bound(x.size(), cc::dtype_of<T>()));
  std::vector<T> y(x.size());
  auto st = codec().decompress(*frame, std::span<T>(y));
  ASSERT_TRUE(st.ok()) << what << ": " << st.to_string();
  ASSERT_TRUE(commpress::testing::bit_equal<T>(x, y)) << what;
}

template <class T>
void all_shapes_and_sizes() {
  const std::vector<size_t> sizes = {0, 1, 2, 31, 32, 33, 97, 1021, 4099};
  for (Shape shape : commpress::testing::all_shapes())
    for (size_t n : sizes)
      for (uint64_t seed = 0; seed < 4; ++seed) {
        expect_bit_exact(commpress::testing::make_data<T>(shape, n, seed),
                         commpress::testing::shape_name(shape) + " n=" + std::to_string(n));
        if (::testing::Test::HasFatalFailure()) return;
      }
}

TEST(SzpLossless, AllShapesF32) { all_shapes_and_sizes<float>(); }
TEST(SzpLossless, AllShapesF64) { all_shapes_and_sizes<double>(); }

template <class T>
void special_values() {
  using U = typename szp::BlockTraits<T>::UInt;
  using L = std::numeric_limits<T>;
  std::vector<T> x = {T(0),          T(-0.0),         L::denorm_min(), -L::denorm_min(),
                      L::min(),      L::max(),        L::lowest(),     L::infinity(),
                      -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(), L::signaling_NaN()};
  // NaNs with payload bits.
  x.push_back(std::bit_cast<T>(std::bit_cast<U>(L::quiet_NaN()) | U(0x1234)));
  x.push_back(std::bit_cast<T>(std::bit_cast<U>(-L::quiet_NaN()) | U(1)));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 5000; ++i) x.push_back(std::bit_cast<T>(U(rng())));
  for (int i = 0; i < 5000; ++i) x.push_back(x[rng() % 14]);  // runs of specials
  expect_bit_exact(x, "special values");
}

TEST(SzpLossless, SpecialValuesF32) { special_values<float>(); }
TEST(SzpLossless, SpecialValuesF64) { special_values<double>(); }

template <class T>
void thread_independent() {
  const size_t n = 600011;
  auto x = commpress::testing::make_data<T>(Shape::smooth3d, n, 1);
  int saved = omp_get_max_threads();
  std::vector<std::byte> ref;
  for (int threads : {1, 2, 3, 4}) {
    omp_set_num_threads(threads);
    auto frame = codec().compress(std::span<const T>(x), cc::ErrorBound::lossless());
    ASSERT_TRUE(frame.ok());
    std::vector<T> y(n);
    ASSERT_TRUE(codec().decompress(*frame, std::span<T>(y)).ok());
    ASSERT_TRUE(commpress::testing::bit_equal<T>(x, y));
    if (ref.empty()) ref = *frame;
    else EXPECT_EQ(*frame, ref) << threads << " threads";
  }
  omp_set_num_threads(saved);
}

TEST(SzpLossless, BytesIndependentOfThreadCountF32) { thread_independent<float>(); }
TEST(SzpLossless, BytesIndependentOfThreadCountF64) { thread_independent<double>(); }

TEST(SzpLossless, StructureOfSimpleArrays) {
  std::vector<float> zeros(100, 0.0f);
  auto f = codec().compress(std::span<const float>(zeros), cc::ErrorBound::lossless());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->size(), cc::kFrameHeaderSize + szp::block_count(100));
  // A constant block is its first value's bits and nothing else.
  std::vector<double> c(64, -1.5);
  auto g = codec().compress(std::span<const double>(c), cc::ErrorBound::lossless());
  ASSERT_TRUE(g.ok());
  auto p = std::span<const std::byte>(*g).subspan(cc::kFrameHeaderSize);
  ASSERT_EQ(p.size(), 2u + 2 * 8);
  EXPECT_EQ(uint8_t(p[0]), szp::lossless_outlier_header(0));
  // -0.0 is not +0.0: ordered value -1, so a plain block of width 1.
  std::vector<double> neg(32, -0.0);
  g = codec().compress(std::span<const double>(neg), cc::ErrorBound::lossless());
  ASSERT_TRUE(g.ok());
  p = std::span<const std::byte>(*g).subspan(cc::kFrameHeaderSize);
  ASSERT_EQ(p.size(), 1u + 4 + 4);
  EXPECT_EQ(uint8_t(p[0]), szp::plain_header(1));
}

TEST(SzpLossless, CompressesSmoothData) {
  std::vector<float> x(1 << 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(std::sin(double(i) * 1e-3));
  auto f = codec().compress(std::span<const float>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(f.ok());
  EXPECT_LT(f->size(), x.size() * 4 * 6 / 10);
}

TEST(SzpLossless, InvalidHeaderRejected) {
  std::vector<float> x(100, 1.5f);
  auto f = codec().compress(std::span<const float>(x), cc::ErrorBound::lossless());
  ASSERT_TRUE(f.ok());
  cc::FrameInfo info = *cc::inspect(*f);
  std::vector<std::byte> p(f->begin() + cc::kFrameHeaderSize, f->end());
  p[1] = std::byte{0x62};  // outlier width 33: more than an f32 has
  std::vector<float> y(100);
  cc::Workspace ws;
  EXPECT_EQ(codec().decode(p, info, y.data(), ws).code(), commpress::ErrorCode::corrupt_frame);
}

}  // namespace
