#include "codec/lossless/zfp_stream_1d.hpp"

#include <zfp.h>

#include <cstring>
#include <cstdint>
#include <memory>
#include <string>

namespace commpress::codec::detail {

namespace {

struct BitStreamClose {
  void operator()(bitstream* s) const { stream_close(s); }
};
using BitStream = std::unique_ptr<bitstream, BitStreamClose>;

zfp_type zfp_type_of(Dtype d) {
  switch (d) {
    case Dtype::f32: return zfp_type_float;
    case Dtype::f64: return zfp_type_double;
    case Dtype::i32: return zfp_type_int32;
    case Dtype::i64: return zfp_type_int64;
    default: return zfp_type_none;
  }
}

// The stream parameters are plain struct fields; configuring one on the stack avoids zfp's
// allocation for what is only a parameter set.
zfp_stream make_stream(const ZfpMode& mode) {
  zfp_stream zs{};
  if (mode.reversible) zfp_stream_set_reversible(&zs);
  else zfp_stream_set_accuracy(&zs, mode.tolerance);
  return zs;
}

zfp_field make_field(const void* data, size_t n, Dtype d) {
  zfp_field f{};
  zfp_field_set_type(&f, zfp_type_of(d));
  zfp_field_set_size_1d(&f, n);
  zfp_field_set_pointer(&f, const_cast<void*>(data));
  return f;
}

size_t encode_block(zfp_stream* s, const float* b) { return zfp_encode_block_float_1(s, b); }
size_t encode_block(zfp_stream* s, const double* b) { return zfp_encode_block_double_1(s, b); }
size_t encode_block(zfp_stream* s, const int32* b) { return zfp_encode_block_int32_1(s, b); }
size_t encode_block(zfp_stream* s, const int64* b) { return zfp_encode_block_int64_1(s, b); }
size_t encode_partial(zfp_stream* s, const float* p, size_t k) {
  return zfp_encode_partial_block_strided_float_1(s, p, k, 1);
}
size_t encode_partial(zfp_stream* s, const double* p, size_t k) {
  return zfp_encode_partial_block_strided_double_1(s, p, k, 1);
}
size_t encode_partial(zfp_stream* s, const int32* p, size_t k) {
  return zfp_encode_partial_block_strided_int32_1(s, p, k, 1);
}
size_t encode_partial(zfp_stream* s, const int64* p, size_t k) {
  return zfp_encode_partial_block_strided_int64_1(s, p, k, 1);
}
size_t decode_block(zfp_stream* s, float* b) { return zfp_decode_block_float_1(s, b); }
size_t decode_block(zfp_stream* s, double* b) { return zfp_decode_block_double_1(s, b); }
size_t decode_block(zfp_stream* s, int32* b) { return zfp_decode_block_int32_1(s, b); }
size_t decode_block(zfp_stream* s, int64* b) { return zfp_decode_block_int64_1(s, b); }
// The same block loop as zfp_compress, so the stream's exact bit length is known.
template <class T>
uint64_t encode_blocks(zfp_stream* zs, const T* x, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    if (n - i >= 4) encode_block(zs, x + i);
    else encode_partial(zs, x + i, n - i);
  }
  return stream_wtell(zfp_stream_bit_stream(zs));
}

// Streams end at the byte holding their last bit, whatever word size zfp was built with:
// zfp's words are filled from the least significant bit, so on a little-endian machine the
// bytes are the same for every word size and only the padding after the last bit differs.
uint64_t stream_bytes(uint64_t bits) { return (bits + 7) / 8; }

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// zfp's encoder fills a partial block of k values as [a a a a], [a b b a] or [a b c a]
// (pad_block). The stream holds no count, so in reversible mode, where the block comes back
// bit for bit, this pattern is the one witness of k a decoder has: a count altered inside the
// last block mostly breaks it. (A lossy block comes back approximately: no such witness.)
template <class T>
bool padded_as_partial(const T* block, size_t k) {
  switch (k) {
    case 1: return same_bits(block[1], block[0]) && same_bits(block[2], block[0]) &&
                   same_bits(block[3], block[0]);
    case 2: return same_bits(block[2], block[1]) && same_bits(block[3], block[0]);
    case 3: return same_bits(block[3], block[0]);
    default: return true;
  }
}

// Decodes block by block, stopping as soon as the read position reaches the real stream end
// (every block takes at least one bit, so a block starting there would be made of padding):
// one block reads at most maxbits bits, which the zero padding behind the stream absorbs.
template <class T>
Status decode_blocks(zfp_stream* zs, T* out, size_t n, uint64_t stream_bits, bool reversible) {
  bitstream* bs = zfp_stream_bit_stream(zs);
  for (size_t i = 0; i < n; i += 4) {
    if (stream_rtell(bs) >= stream_bits)
      return {ErrorCode::corrupt_frame, "zfp stream ends before block " + std::to_string(i / 4) +
                                            " of " + std::to_string((n + 3) / 4)};
    if (n - i >= 4) {
      decode_block(zs, out + i);
      continue;
    }
    // The same bits decode_partial reads, kept whole so the padding can be checked.
    T block[4];
    decode_block(zs, block);
    std::memcpy(out + i, block, (n - i) * sizeof(T));
    if (reversible && !padded_as_partial(block, n - i))
      return {ErrorCode::corrupt_frame,
              "zfp's last block is not padded as a block of " + std::to_string(n - i) +
                  " values: the stream was written for another element count"};
  }
  return {};
}

}  // namespace

bool zfp_supports(Dtype d, const ZfpMode& mode) {
  if (d == Dtype::f32 || d == Dtype::f64) return true;
  // Integers are exact only in reversible mode; zfp's lossy integer path assumes headroom.
  return mode.reversible && (d == Dtype::i32 || d == Dtype::i64);
}

size_t zfp_max_stream_bytes(size_t n, Dtype d, const ZfpMode& mode) {
  if (n == 0) return 0;
  zfp_stream zs = make_stream(mode);
  zfp_field f = make_field(nullptr, n, d);
  return zfp_stream_maximum_size(&zs, &f);
}

size_t zfp_min_stream_bytes(size_t n) { return ((n + 3) / 4 + 7) / 8; }

Result<size_t> zfp_encode_1d(const void* data, size_t n, Dtype d, const ZfpMode& mode,
                             std::span<std::byte> out) {
  if (!zfp_supports(d, mode))
    return Status{ErrorCode::unsupported, std::string("zfp cannot encode ") + dtype_name(d)};
  if (n == 0) return size_t{0};
  zfp_stream zs = make_stream(mode);
  zfp_field f = make_field(data, n, d);
  size_t cap = zfp_stream_maximum_size(&zs, &f);
  if (out.size() < cap)
    return Status{ErrorCode::capacity, "zfp stream needs up to " + std::to_string(cap) +
                                           " bytes, got " + std::to_string(out.size())};
  BitStream bs(stream_open(out.data(), cap));
  if (!bs) return Status{ErrorCode::internal, "zfp stream_open failed (out of memory)"};
  zfp_stream_set_bit_stream(&zs, bs.get());
  zfp_stream_rewind(&zs);
  uint64_t bits = 0;
  switch (d) {
    case Dtype::f32: bits = encode_blocks(&zs, static_cast<const float*>(data), n); break;
    case Dtype::f64: bits = encode_blocks(&zs, static_cast<const double*>(data), n); break;
    case Dtype::i32: bits = encode_blocks(&zs, static_cast<const int32*>(data), n); break;
    case Dtype::i64: bits = encode_blocks(&zs, static_cast<const int64*>(data), n); break;
    default: break;
  }
  zfp_stream_flush(&zs);
  if (bits == 0 || stream_bytes(bits) > cap)
    return Status{ErrorCode::internal, "zfp encoding failed on " + std::to_string(n) + " " +
                                           dtype_name(d) + " values"};
  return size_t(stream_bytes(bits));
}

Status zfp_decode_1d(std::span<const std::byte> stream, size_t n, Dtype d, const ZfpMode& mode,
                     void* out, std::vector<std::byte>& scratch) {
  if (!zfp_supports(d, mode))
    return {ErrorCode::corrupt_frame, std::string("zfp cannot hold ") + dtype_name(d)};
  if (n == 0) {
    if (!stream.empty())
      return {ErrorCode::corrupt_frame, "zfp stream for zero elements must be empty"};
    return {};
  }
  if (stream.size() > zfp_max_stream_bytes(n, d, mode))
    return {ErrorCode::corrupt_frame, "zfp stream of " + std::to_string(stream.size()) +
                                          " bytes exceeds the worst case for " +
                                          std::to_string(n) + " values"};
  zfp_stream zs = make_stream(mode);
  unsigned maxbits = 0;
  zfp_stream_params(&zs, nullptr, &maxbits, nullptr, nullptr);
  size_t word_bytes = stream_word_bits / 8;
  size_t padded = stream.size() + maxbits / 8 + 4 * word_bytes;
  padded = (padded + word_bytes - 1) / word_bytes * word_bytes;
  if (scratch.size() < padded) scratch.resize(padded);
  if (!stream.empty()) std::memcpy(scratch.data(), stream.data(), stream.size());
  std::memset(scratch.data() + stream.size(), 0, padded - stream.size());
  BitStream bs(stream_open(scratch.data(), padded));
  if (!bs) return {ErrorCode::internal, "zfp stream_open failed (out of memory)"};
  zfp_stream_set_bit_stream(&zs, bs.get());
  zfp_stream_rewind(&zs);
  uint64_t bits = uint64_t{stream.size()} * 8;
  const bool rev = mode.reversible;
  Status st;
  switch (d) {
    case Dtype::f32: st = decode_blocks(&zs, static_cast<float*>(out), n, bits, rev); break;
    case Dtype::f64: st = decode_blocks(&zs, static_cast<double*>(out), n, bits, rev); break;
    case Dtype::i32: st = decode_blocks(&zs, static_cast<int32*>(out), n, bits, rev); break;
    case Dtype::i64: st = decode_blocks(&zs, static_cast<int64*>(out), n, bits, rev); break;
    default: return {ErrorCode::corrupt_frame, "zfp cannot hold this dtype"};
  }
  if (!st.ok()) return st;
  // A valid stream is used up to its last byte exactly.
  uint64_t used_bytes = stream_bytes(stream_rtell(bs.get()));
  if (used_bytes != stream.size())
    return {ErrorCode::corrupt_frame, "zfp stream decodes from " + std::to_string(used_bytes) +
                                          " bytes but holds " + std::to_string(stream.size())};
  return {};
}

}  // namespace commpress::codec::detail
