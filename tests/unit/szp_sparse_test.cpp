// szp-eh's sparse chunks (docs/format/szp-e.md, "Sparse chunk"): which data get them, the
// bound and the raw blocks through them, both prediction orders, and forged event streams
// refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "codec/lossy/szp/entropy_chunk.hpp"
#include "commpress/codec.hpp"
#include "support/datasets.hpp"
#include "support/round_trip.hpp"
#include "support/reframe.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
using commpress::ErrorCode;
using commpress::Status;
using commpress::testing::Shape;

namespace {

constexpr uint8_t kSparseBit = 0x40;
// Three full chunks and a partial one ending inside a block.
constexpr size_t kMultiChunk = 3 * szp::kChunkValues + 77;

const cc::Codec& eh() {
  const cc::Codec* c = cc::find_codec("szp-eh");
  EXPECT_NE(c, nullptr);
  return *c;
}

// The mode bytes of a flat frame's chunks, walking the chunks by their declared sizes.
std::vector<uint8_t> chunk_modes(const std::vector<std::byte>& frame) {
  std::vector<uint8_t> modes;
  std::span<const std::byte> rest(frame.data() + cc::kFrameHeaderSize,
                                  frame.size() - cc::kFrameHeaderSize);
  while (!rest.empty()) {
    auto size = szp::chunk_size_at(rest);
    if (!size.ok()) {
      ADD_FAILURE() << size.status().to_string();
      break;
    }
    modes.push_back(std::to_integer<uint8_t>(rest[0]));
    rest = rest.subspan(*size);
  }
  return modes;
}

template <class T>
std::vector<std::byte> round_trip(const cc::Codec& c, const std::vector<T>& x,
                                  const cc::ErrorBound& bound, const std::string& what) {
  return commpress::testing::checked_round_trip(c, x, bound, what);
}

size_t sparse_chunks(const std::vector<std::byte>& frame) {
  size_t k = 0;
  for (uint8_t m : chunk_modes(frame)) k += (m & kSparseBit) != 0;
  return k;
}

// A random walk at loose bounds, where few integers move (the walk's range is about 10^3
// steps: REL 1e-2 is a bound of about 10 steps): every full chunk sparse, within the bound,
// and smaller than szp-e's blocks (which szp-e keeps writing). (The last chunk's 77 values
// go either way.)
template <class T>
void walk_goes_sparse() {
  auto x = commpress::testing::make_data<T>(Shape::random_walk, kMultiChunk, 3);
  const cc::Codec* e = cc::find_codec("szp-e");
  ASSERT_NE(e, nullptr);
  for (double rel : {3e-2, 1e-2}) {
    const std::string what = std::string(cc::dtype_name(cc::dtype_of<T>())) + " REL " +
                             std::to_string(rel);
    auto sparse = round_trip(eh(), x, cc::ErrorBound::relative(rel), what);
    auto blocks = round_trip(*e, x, cc::ErrorBound::relative(rel), what);
    EXPECT_GE(sparse_chunks(sparse), x.size() / szp::kChunkValues) << what;
    EXPECT_EQ(sparse_chunks(blocks), 0u) << what << ": szp-e's frames never change layout";
    EXPECT_LT(sparse.size(), blocks.size()) << what;
  }
  // A tight bound moves most integers: blocks, as szp-e writes them.
  auto dense = round_trip(eh(), x, cc::ErrorBound::relative(1e-4), "REL 1e-4");
  EXPECT_EQ(sparse_chunks(dense), 0u);
}

TEST(SzpSparse, RandomWalkAtLooseBoundsGoesSparse) {
  walk_goes_sparse<float>();
  walk_goes_sparse<double>();
}

// Values that cannot be quantized inside sparse chunks: their blocks stay raw (listed at the
// front of the events, values in the second stream), the chain skips them, and non-finite
// values come back bit for bit.
TEST(SzpSparse, RawBlocksInsideSparseChunksKeepTheBound) {
  auto x = commpress::testing::make_data<float>(Shape::random_walk, kMultiChunk, 9);
  for (size_t i = 0; i < x.size(); i += 5003) x[i] = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 17; i < x.size(); i += 7919) x[i] = std::numeric_limits<float>::infinity();
  for (size_t i = 29; i < x.size(); i += 9973) x[i] = -3e38f;
  x.back() = std::numeric_limits<float>::quiet_NaN();  // the partial last block raw too
  // A REL bound resolves over the finite values; -3e38 is past the quantizer's range.
  auto frame = round_trip(eh(), x, cc::ErrorBound::absolute(50.0), "raw blocks");
  EXPECT_EQ(sparse_chunks(frame), szp::chunk_count(x.size()));
  std::vector<float> y(x.size());
  ASSERT_TRUE(eh().decompress(frame, std::span<float>(y)).ok());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || x[i] == -3e38f) {
      EXPECT_EQ(std::memcmp(&x[i], &y[i], sizeof(float)), 0) << "value " << i;
    }
  }
}

// Both prediction orders, both step sizes reach the sparse layout on the data that choose
// them: a slow drift (order 1, half step) and a smooth trend (order 2).
TEST(SzpSparse, BothOrdersAndStepsDecode) {
  std::set<uint8_t> seen;
  auto walk = commpress::testing::make_data<float>(Shape::random_walk, kMultiChunk, 5);
  for (uint8_t m : chunk_modes(round_trip(eh(), walk, cc::ErrorBound::relative(1e-2), "walk")))
    seen.insert(m);
  // Piecewise linear on the quantizer's grid (step 2 eb = 0.5), its slope changing every 3001
  // values: second differences are 0 but at the bends.
  std::vector<double> trend(kMultiChunk);
  double slope = 3, at = 0;
  for (size_t i = 0; i < trend.size(); ++i) {
    if (i % 3001 == 0) slope = double(int(i / 3001) % 7) - 3;
    trend[i] = at += 0.5 * slope;
  }
  for (uint8_t m : chunk_modes(round_trip(eh(), trend, cc::ErrorBound::absolute(0.25), "trend")))
    seen.insert(m);
  EXPECT_TRUE(seen.count(0x51)) << "order 1, half step, sparse";
  EXPECT_TRUE(seen.count(0x42) || seen.count(0x52)) << "order 2, sparse";
}

// A frame holding one sparse chunk whose event stream is stored as it is: 1000 values, 0 up
// to value 500 and 10 from there, at bound 1 (half step 1: the integer moves by 10 once).
TEST(SzpSparse, ForgedEventsAreRefused) {
  std::vector<float> step(1000, 0.0f);
  for (size_t i = 500; i < step.size(); ++i) step[i] = 10.0f;
  auto frame = round_trip(eh(), step, cc::ErrorBound::absolute(1.0), "step");
  const auto good = commpress::testing::open_frame(frame);
  using P = std::vector<std::byte>;
  // mode 0x51, coding 0, hs = 4, bs = 0; events: no raw block; 500 zeros (f4 03), then the
  // residual 10 zigzagged (20).
  const P expected = {std::byte{0x51}, std::byte{0}, std::byte{4}, std::byte{0}, std::byte{0},
                      std::byte{0},    std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0},
                      std::byte{0},    std::byte{0xF4}, std::byte{0x03}, std::byte{20}};
  ASSERT_EQ(good.payload, expected);
  std::vector<float> y(step.size());
  auto refused = [&](auto edit, const char* what) {
    auto f = good;
    edit(f.payload);
    Status st = eh().decompress(commpress::testing::reframe(f), std::span<float>(y));
    EXPECT_EQ(st.code(), ErrorCode::corrupt_frame) << what << ": " << st.to_string();
  };
  refused([](P& p) { p[0] = std::byte{0x43}; }, "order 3");
  refused([](P& p) { p[0] = std::byte{0xC1}; }, "unknown mode bit");
  refused([](P& p) { p[1] = std::byte{0x04}; }, "unknown coding bit");
  refused([](P& p) { p[1] = std::byte{0x01}; }, "events claimed to be zstd");
  refused([](P& p) { p[13] = std::byte{0}; }, "residual 0");
  refused([](P& p) { p[11] = std::byte{0xE8}; p[12] = std::byte{0x07}; }, "event past the values");
  refused([](P& p) { p[12] = std::byte{0x83}; }, "event cut short");
  refused([](P& p) { p[2] = std::byte{5}; p.push_back(std::byte{2}); }, "bytes after the last event");
  refused([](P& p) { p[10] = std::byte{1}; }, "raw block without its index");
  refused([](P& p) {
    p[2] = std::byte{5};
    p.insert(p.begin() + 11, {std::byte{1}, std::byte{40}});
    p.erase(p.begin() + 10);
  }, "raw block past the chunk");
  refused([](P& p) {
    p[2] = std::byte{5};
    p[10] = std::byte{1};
    p.insert(p.begin() + 11, std::byte{3});
  }, "raw block without its values");
  refused([](P& p) {
    p[2] = std::byte{5};
    p[13] = std::byte{0x80};
    p.push_back(std::byte{0});
  }, "non-minimal LEB128");
  refused([](P& p) {
    p[2] = std::byte{9};
    p.pop_back();
    for (int k = 0; k < 5; ++k) p.push_back(std::byte{0xFF});
    p.push_back(std::byte{0x7F});
  }, "residual wider than the integer");
  refused([](P& p) {  // a gap of 2^64 - 1 after the first event wraps back onto it
    p[2] = std::byte{15};
    for (int k = 0; k < 9; ++k) p.push_back(std::byte{0xFF});
    p.push_back(std::byte{0x01});
    p.push_back(std::byte{2});
  }, "event on the one before it");
  refused([](P& p) { p.pop_back(); }, "truncated chunk");

  // A sparse chunk in a frame whose header records bound 0 (exact: zero and raw blocks only).
  auto open = good;
  open.info.abs_bound = 0;
  open.info.requested_bound = 0;
  open.info.mode = cc::BoundMode::abs;
  EXPECT_EQ(eh().decompress(commpress::testing::reframe(open), std::span<float>(y)).code(),
            ErrorCode::corrupt_frame);
}

}  // namespace
