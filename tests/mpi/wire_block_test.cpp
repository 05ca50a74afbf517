// A block is its chunk frames back to back, written straight into a buffer sized to the
// worst case and never zeroed: the bytes it keeps must be exactly the frames each chunk
// encodes to on its own, whatever the buffer held before, and decode within the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "comm/transport/wire.hpp"
#include "support/datasets.hpp"

namespace cd = commpress::comm::detail;
namespace ct = commpress::testing;
using commpress::comm::Dtype;
using commpress::comm::Options;

namespace {

cd::Wire szp_wire(size_t chunk_bytes) {
  Options opts;
  opts.codec = "szp";
  opts.bound = commpress::comm::ErrorBound::absolute(1e-3);
  opts.chunk_bytes = chunk_bytes;
  auto w = cd::Wire::make(opts, Dtype::f32);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return *w;
}

std::vector<std::byte> chunk_by_chunk(const cd::Wire& w, const float* x, size_t n) {
  std::vector<std::byte> all, frame;
  for (size_t k = 0; k < w.num_chunks(n); ++k) {
    auto len = w.encode(x + k * w.chunk_elems(), w.chunk_size(n, k), frame);
    EXPECT_TRUE(len.ok()) << len.status().message();
    all.insert(all.end(), frame.begin(), frame.begin() + std::ptrdiff_t(len.ok() ? *len : 0));
  }
  return all;
}

TEST(WireBlock, IsItsChunkFramesWhateverTheBufferHeld) {
  const cd::Wire w = szp_wire(4096);  // 1024 f32 per chunk
  for (size_t n : {size_t{0}, size_t{1}, size_t{1023}, size_t{1024}, size_t{5000}}) {
    const auto x = ct::make_data<float>(ct::Shape::random_walk, n, 7);
    const auto want = chunk_by_chunk(w, x.data(), n);
    // Reused buffers: one larger than the block and full of stale bytes, one empty.
    cd::Buffer stale(w.block_capacity(n) + 100, std::byte{0xab}), fresh;
    for (cd::Buffer* out : {&stale, &fresh}) {
      ASSERT_TRUE(w.encode_block(x.data(), n, *out).ok());
      EXPECT_EQ(std::vector<std::byte>(out->begin(), out->end()), want) << n << " values";
      std::vector<float> y(n, NAN);
      ASSERT_TRUE(w.decode_block(*out, y.data(), n).ok());
      for (size_t i = 0; i < n; ++i) ASSERT_LE(std::fabs(double(y[i]) - x[i]), 1e-3) << i;
    }
  }
}

}  // namespace
