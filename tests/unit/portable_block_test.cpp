// The host-and-device block code (codec/lossy/szp/portable_block.hpp, the functions CUDA
// kernels run per block) against the CPU codec on the adversarial data sets and odd sizes:
// payloads assembled block by block from the portable encoder equal the codec's byte for
// byte (whichever kernels the codec dispatched to), the portable decoder gives the codec's
// values bit for bit, and the homomorphic per-block sum run the way the device runs it (one
// block at a time, no SIMD) gives combine()'s and combine_raw()'s frames.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "codec/homomorphic/block_operands.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "commpress/codec.hpp"
#include "commpress/homomorphic.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
namespace szp = commpress::codec::szp;
namespace hm = commpress::codec::homomorphic;
using Bytes = std::vector<std::byte>;

namespace {

const cc::Codec& szp_codec() { return *cc::find_codec("szp"); }

// The payload of n values coded block by block: headers, then bodies in block order.
template <class T, class CodeBlock>
Bytes assemble(size_t n, const CodeBlock& code_block) {
  const size_t nb = szp::block_count(n);
  Bytes payload(nb);
  std::byte body[szp::max_body_size<T>(szp::Mode::lossy)];
  for (size_t b = 0; b < nb; ++b) {
    uint8_t h = 0;
    const size_t s = code_block(b, szp::valid_in_block(n, b), h, body);
    payload[b] = std::byte{h};
    payload.insert(payload.end(), body, body + s);
  }
  return payload;
}

Bytes payload_of(const Bytes& frame) {
  return Bytes(frame.begin() + cc::kFrameHeaderSize, frame.end());
}

// Body offsets of a validated lossy payload.
template <class T>
std::vector<uint64_t> offsets_of(const Bytes& payload, size_t n) {
  std::vector<uint64_t> off;
  EXPECT_TRUE(szp::block_offsets<T>(payload, n, szp::Mode::lossy, off).ok());
  return off;
}

template <class T>
hm::FrameBlock<T> block_of(const Bytes& payload, const std::vector<uint64_t>& off, size_t nb,
                           size_t b) {
  return {uint8_t(payload[b]), payload.data() + nb + off[b], size_t(off[b + 1] - off[b])};
}

template <class T>
void codec_equals_portable_blocks() {
  const std::vector<cc::ErrorBound> bounds = {cc::ErrorBound::relative(1e-4),
                                              cc::ErrorBound::relative(1e-1),
                                              cc::ErrorBound::absolute(1e-6)};
  for (auto shape : commpress::testing::all_shapes())
    for (size_t n : commpress::testing::awkward_sizes())
      for (const auto& bound : bounds) {
        SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n) +
                     " bound=" + std::to_string(bound.value));
        auto x = commpress::testing::make_data<T>(shape, n, 17 + n);
        auto frame = szp_codec().compress(std::span<const T>(x), bound);
        ASSERT_TRUE(frame.ok()) << frame.status().message();
        const cc::FrameInfo info = *cc::inspect(*frame);
        const szp::LinearQuantizer<T> qz(info.abs_bound);
        const Bytes payload = payload_of(*frame);
        EXPECT_EQ(assemble<T>(n,
                              [&](size_t b, size_t valid, uint8_t& h, std::byte* body) {
                                return szp::portable::encode_lossy_block(
                                    x.data() + b * szp::kBlockValues, valid, qz, h, body);
                              }),
                  payload);
        // The planning pass the device encoder sizes its output with agrees with the encoder.
        for (size_t b = 0; b < szp::block_count(n); ++b) {
          uint8_t h = 0;
          const size_t s = szp::portable::plan_lossy_block(x.data() + b * szp::kBlockValues,
                                                            szp::valid_in_block(n, b), qz, h);
          ASSERT_EQ(h, uint8_t(payload[b]));
          ASSERT_EQ(s, szp::body_size<T>(h, szp::valid_in_block(n, b), szp::Mode::lossy));
        }
        // Decoding block by block gives the codec's values, bit for bit.
        std::vector<T> codec_out(n), portable_out(n);
        ASSERT_TRUE(cc::decompress(*frame, std::span<T>(codec_out)).ok());
        const auto off = offsets_of<T>(payload, n);
        const size_t nb = szp::block_count(n);
        for (size_t b = 0; b < nb; ++b)
          ASSERT_TRUE(szp::portable::decode_lossy_block(
              uint8_t(payload[b]), payload.data() + nb + off[b], szp::valid_in_block(n, b), qz,
              portable_out.data() + b * szp::kBlockValues));
        if (n != 0)  // empty vectors may hold null pointers, which memcmp must not see
          EXPECT_EQ(std::memcmp(codec_out.data(), portable_out.data(), n * sizeof(T)), 0);
      }
}

TEST(PortableBlock, CodecPayloadsAreThePortableBlocksF32) { codec_equals_portable_blocks<float>(); }
TEST(PortableBlock, CodecPayloadsAreThePortableBlocksF64) { codec_equals_portable_blocks<double>(); }

template <class T>
void sums_equal_combine() {
  for (auto shape : commpress::testing::all_shapes())
    for (size_t n : commpress::testing::awkward_sizes()) {
      if (n == 0) continue;
      SCOPED_TRACE(commpress::testing::shape_name(shape) + " n=" + std::to_string(n));
      auto a = commpress::testing::make_data<T>(shape, n, 3 + n);
      auto b = commpress::testing::make_data<T>(commpress::testing::Shape::random_walk, n, 4 + n);
      const auto bound = cc::ErrorBound::absolute(1e-3);
      Bytes fa = *szp_codec().compress(std::span<const T>(a), bound);
      Bytes fb = *szp_codec().compress(std::span<const T>(b), bound);
      Bytes want, want_raw;
      ASSERT_TRUE(cc::combine(fa, fb, cc::CombineOp::sum, want).ok());
      ASSERT_TRUE(cc::combine_raw(std::span<const T>(a), fb, cc::CombineOp::sum, want_raw).ok());
      const Bytes pa = payload_of(fa), pb = payload_of(fb);
      const auto oa = offsets_of<T>(pa, n), ob = offsets_of<T>(pb, n);
      const size_t nb = szp::block_count(n);
      const szp::LinearQuantizer<T> qz(1e-3);
      EXPECT_EQ(assemble<T>(n,
                            [&](size_t blk, size_t valid, uint8_t& h, std::byte* body) {
                              return hm::combine_block<T>(block_of<T>(pa, oa, nb, blk),
                                                          block_of<T>(pb, ob, nb, blk), valid, qz,
                                                          h, body);
                            }),
                payload_of(want));
      EXPECT_EQ(assemble<T>(n,
                            [&](size_t blk, size_t valid, uint8_t& h, std::byte* body) {
                              return hm::combine_block<T>(
                                  hm::LocalBlock<T>(a.data() + blk * szp::kBlockValues, valid, qz),
                                  block_of<T>(pb, ob, nb, blk), valid, qz, h, body);
                            }),
                payload_of(want_raw));
    }
}

TEST(PortableBlock, BlockSumsAreCombinesFramesF32) { sums_equal_combine<float>(); }
TEST(PortableBlock, BlockSumsAreCombinesFramesF64) { sums_equal_combine<double>(); }

}  // namespace
