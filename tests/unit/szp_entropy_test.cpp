// The "szp-e" codec end to end beyond the registry-wide tests: frames of several chunks on
// every test shape, the mode each kind of data gets, frames independent of the thread count,
// the ratio the entropy stage exists for, exact frames, and forged chunk fields refused.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "codec/lossy/szp/entropy_chunk.hpp"
#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"
#include "support/round_trip.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::ErrorCode;
using commpress::Status;
using commpress::testing::Shape;

namespace {

const cc::Codec& codec() {
  const cc::Codec* c = cc::find_codec("szp-e");
  EXPECT_NE(c, nullptr);
  return *c;
}

// Three full chunks and a partial one ending inside a block.
constexpr size_t kMultiChunk = 3 * szp::kChunkValues + 77;

template <class T>
std::vector<std::byte> round_trip(const std::vector<T>& x, const cc::ErrorBound& bound,
                                  const std::string& what) {
  return commpress::testing::checked_round_trip(codec(), x, bound, what);
}

uint8_t first_chunk_mode(const std::vector<std::byte>& frame) {
  return std::to_integer<uint8_t>(frame.at(cc::kFrameHeaderSize));
}

template <class T>
void every_shape_every_bound() {
  for (Shape s : commpress::testing::all_shapes())
    for (cc::ErrorBound b : {cc::ErrorBound::relative(1e-2), cc::ErrorBound::relative(1e-4),
                             cc::ErrorBound::absolute(1e-3), cc::ErrorBound::lossless()}) {
      auto x = commpress::testing::make_data<T>(s, kMultiChunk, 7);
      round_trip(x, b, commpress::testing::shape_name(s) + " " + cc::dtype_name(cc::dtype_of<T>()) +
                           " " + cc::bound_mode_name(b.mode) + " " + std::to_string(b.value));
    }
}

TEST(SzpEntropy, EveryShapeAndBoundOverSeveralChunks) {
  every_shape_every_bound<float>();
  every_shape_every_bound<double>();
}

// Values on and next to the edges of the hysteresis window, broken by values that cannot be
// quantized (raw blocks must leave the carried integer alone), at a loose bound.
TEST(SzpEntropy, HysteresisEdgesAndRawBlocksKeepTheBound) {
  for (double eb : {0.5, 1e-3, 3.0}) {
    std::vector<float> x(kMultiChunk);
    for (size_t i = 0; i < x.size(); ++i) {
      const double k = double(i / 97 % 5) - 2;  // whole multiples of eb, then just past them
      x[i] = float(k * eb + (i % 3 == 0 ? 0.0 : (i % 3 == 1 ? 1 : -1) * eb * 0.999999));
      if (i % 4099 == 0) x[i] = std::numeric_limits<float>::quiet_NaN();
      if (i % 7919 == 0) x[i] = 3e38f;
      if (i % 6007 == 0) x[i] = std::numeric_limits<float>::denorm_min();
    }
    round_trip(x, cc::ErrorBound::absolute(eb), "edges eb " + std::to_string(eb));
  }
}

TEST(SzpEntropy, ModeFollowsTheData) {
  auto walk = commpress::testing::make_data<float>(Shape::random_walk, kMultiChunk, 3);
  EXPECT_EQ(first_chunk_mode(round_trip(walk, cc::ErrorBound::relative(1e-2), "walk 1e-2")), 0x11)
      << "a slow drift against the bound takes the half step with hysteresis";
  EXPECT_EQ(first_chunk_mode(round_trip(walk, cc::ErrorBound::relative(1e-5), "walk 1e-5")), 0x01);
  std::vector<double> ramp(kMultiChunk);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = 1e3 * std::sin(double(i) * 1e-4);
  EXPECT_EQ(first_chunk_mode(round_trip(ramp, cc::ErrorBound::absolute(1e-6), "ramp")), 0x02)
      << "a smooth trend takes order-2 prediction";
}

TEST(SzpEntropy, FramesDoNotDependOnTheThreadCount) {
  auto x = commpress::testing::make_data<float>(Shape::smooth3d, kMultiChunk, 5);
  const int before = omp_get_max_threads();
  std::vector<std::vector<std::byte>> frames;
  for (int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    frames.push_back(round_trip(x, cc::ErrorBound::relative(1e-3), "threads"));
  }
  omp_set_num_threads(before);
  EXPECT_EQ(frames[0], frames[1]);
  EXPECT_EQ(frames[0], frames[2]);
}

// What the codec is for: at a loose bound the runs and the entropy stage leave szp's
// one-byte-per-block floor far behind.
TEST(SzpEntropy, FarDenserThanSzpAtALooseBound) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, size_t{1} << 20, 11);
  const cc::Codec* plain = cc::find_codec("szp");
  ASSERT_NE(plain, nullptr);
  auto a = plain->compress(std::span<const float>(x), cc::ErrorBound::relative(1e-2));
  ASSERT_TRUE(a.ok());
  auto b = round_trip(x, cc::ErrorBound::relative(1e-2), "walk");
  EXPECT_GT(a->size(), 5 * b.size()) << "szp " << a->size() << " bytes, szp-e " << b.size();
}

// A REL bound over a range below the smallest normal number resolves to 0: exact frames.
TEST(SzpEntropy, BoundZeroIsExactAndRefusesQuantizedBlocks) {
  std::vector<float> tiny(kMultiChunk);
  for (size_t i = 0; i < tiny.size(); ++i)
    tiny[i] = i % 3 ? std::numeric_limits<float>::denorm_min() * float(i % 1000) : 0.0f;
  auto frame = round_trip(tiny, cc::ErrorBound::relative(0.5), "denormals");
  auto info = cc::inspect(frame);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->abs_bound, 0.0);
  std::vector<float> y(tiny.size());
  ASSERT_TRUE(codec().decompress(frame, std::span<float>(y)).ok());
  EXPECT_TRUE(commpress::testing::bit_equal<float>(tiny, y));

  // A lossy frame whose header claims bound 0 holds quantized blocks: refused.
  auto walk = commpress::testing::make_data<float>(Shape::random_walk, 5000, 1);
  auto lossy = codec().compress(std::span<const float>(walk), cc::ErrorBound::absolute(0.1));
  ASSERT_TRUE(lossy.ok());
  auto open = commpress::testing::open_frame(*lossy);
  open.info.mode = cc::BoundMode::rel;
  open.info.requested_bound = 1e-30;
  open.info.abs_bound = 0;
  std::vector<float> z(walk.size());
  EXPECT_EQ(codec().decompress(commpress::testing::reframe(open), std::span<float>(z)).code(),
            ErrorCode::corrupt_frame);
}

TEST(SzpEntropy, ForgedChunkFieldsAreRefused) {
  std::vector<float> zeros(1000, 0.0f);
  auto frame = codec().compress(std::span<const float>(zeros), cc::ErrorBound::absolute(1.0));
  ASSERT_TRUE(frame.ok());
  const auto good = commpress::testing::open_frame(*frame);
  // One chunk: mode, coding, two sizes, then the header runs stored as they are (0x00 and
  // the run of 32 zero blocks), no bodies.
  ASSERT_EQ(good.payload.size(), szp::kChunkHeaderSize + 2);
  std::vector<float> y(zeros.size());
  auto refused = [&](auto edit, const char* what) {
    auto f = good;
    edit(f.payload);
    Status st = codec().decompress(commpress::testing::reframe(f), std::span<float>(y));
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << what << ": " << st.to_string();
  };
  using P = std::vector<std::byte>;
  refused([](P& p) { p[0] = std::byte{0x03}; }, "order 3");
  refused([](P& p) { p[0] = std::byte{0x21}; }, "unknown mode bit");
  refused([](P& p) { p[1] = std::byte{0x04}; }, "unknown coding bit");
  refused([](P& p) { p[1] = std::byte{0x01}; }, "runs claimed to be zstd");
  refused([](P& p) { p[11] = std::byte{0}; }, "run of 0");
  refused([](P& p) { p[11] = std::byte{33}; }, "run past the chunk");
  refused([](P& p) { p[11] = std::byte{31}; }, "run short of the chunk");
  refused([](P& p) { p[11] = std::byte{0x80}; }, "run ending inside its length");
  refused([](P& p) { p[2] = std::byte{3}; }, "runs size past the payload");
  refused([](P& p) { p.push_back(std::byte{0}); }, "bytes after the last chunk");
  refused([](P& p) { p.pop_back(); }, "truncated chunk");
  refused([](P& p) { p[10] = std::byte{0x01}; p[11] = std::byte{0x00}; }, "plain block without body");
}

}  // namespace
