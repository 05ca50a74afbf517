// Fused AVX2 block kernels for f32, for CPUs without AVX-512 (the x86-64-v3 build): one pass
// over a block does quantize (or order-map), bound check, Lorenzo, widths and bit-plane
// packing in registers, and the inverse for decoding, as block_kernels_avx512.hpp does with
// a block as 4 vectors of 8 lanes. They must write and read exactly the bytes of the portable
// path in portable_block.hpp (tests compare the two on random blocks and arbitrary bodies).
// f64 keeps the portable path here: AVX2 has no 64-bit float-integer conversions.
#pragma once

#if defined(__AVX2__) && !(defined(__AVX512F__) && defined(__AVX512DQ__))

#include <immintrin.h>

#include <bit>
#include <cstdint>
#include <cstring>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/fixed_length_encoder.hpp"
#include "codec/lossy/szp/float_order_map.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "core/byte_io.hpp"

#define COMMPRESS_SZP_AVX2 1

namespace commpress::codec::szp::detail {

struct BlockAvx2 {
  static constexpr int kVectors = 4;

  // [below[7], a[0..6]]: a shifted up one lane, the lane below taken from `below`.
  static __m256i shift_in(__m256i a, __m256i below) {
    return _mm256_alignr_epi8(a, _mm256_permute2x128_si256(below, a, 0x21), 12);
  }
  static uint32_t negatives(__m256i a) {
    return uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(a)));
  }
  // All bits set in lane t where bit t of bits is.
  static __m256i lanes_of(uint32_t bits) {
    const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int32_t(bits)), lane_bit),
                              lane_bit);
  }
  static uint32_t reduce_or(__m256i a) {
    __m128i v = _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    v = _mm_or_si128(v, _mm_shuffle_epi32(v, 0x4E));
    v = _mm_or_si128(v, _mm_shuffle_epi32(v, 0xB1));
    return uint32_t(_mm_cvtsi128_si32(v));
  }
  // Inclusive prefix sum inside one vector, plus the last lane of `carry` to every lane.
  static __m256i scan(__m256i a, __m256i carry) {
    a = _mm256_add_epi32(a, _mm256_slli_si256(a, 4));
    a = _mm256_add_epi32(a, _mm256_slli_si256(a, 8));  // each 128-bit half summed
    const __m256i low_total = _mm256_shuffle_epi32(a, 0xFF);
    a = _mm256_add_epi32(a, _mm256_permute2x128_si256(low_total, low_total, 0x08));
    return _mm256_add_epi32(a, _mm256_permutevar8x32_epi32(carry, _mm256_set1_epi32(7)));
  }
  // FloatOrderMap::flip on every lane.
  static __m256i flip(__m256i a) {
    return _mm256_xor_si256(
        a, _mm256_and_si256(_mm256_srai_epi32(a, 31), _mm256_set1_epi32(0x7FFFFFFF)));
  }
  // Lorenzo on a block's 4 vectors: r[i] = q[i] - q[i - 1], q[-1] = 0.
  static void lorenzo(const __m256i* q, __m256i* r) {
    for (int g = 0; g < kVectors; ++g)
      r[g] = _mm256_sub_epi32(q[g], shift_in(q[g], g == 0 ? _mm256_setzero_si256() : q[g - 1]));
  }
  // LinearQuantizer::quantize on 8 values; the lanes it accepts as bits.
  static uint32_t quantize(__m256 x, __m256 inv, __m256 step, __m256 accept, __m256i& q) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 limit = _mm256_set1_ps(float(LinearQuantizer<float>::kLimit));
    const __m256 y = _mm256_mul_ps(x, inv);
    // Out-of-range (or NaN) lanes quantize to 0 like the portable path, and fail the check.
    const __m256 in = _mm256_cmp_ps(_mm256_and_ps(y, magnitude), limit, _CMP_LT_OQ);
    q = _mm256_and_si256(_mm256_cvtps_epi32(y), _mm256_castps_si256(in));
    const __m256 back = _mm256_mul_ps(_mm256_cvtepi32_ps(q), step);
    const __m256 near =
        _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(x, back), magnitude), accept, _CMP_LE_OQ);
    return uint32_t(_mm256_movemask_ps(_mm256_and_ps(in, near)));
  }
};

inline size_t write_raw_avx2(const float* x, size_t valid, uint8_t& header, std::byte* body) {
  header = kRawHeader;
  std::memcpy(body, x, valid * sizeof(float));
  return valid * sizeof(float);
}

// The body of a block's residuals r (zero / plain / outlier, the choice portable::plan
// makes); where x is given (the block's 32 values, padded; valid of them real) a block no
// smaller than those values is stored raw instead, as portable::code_or_raw does.
template <Mode M>
inline size_t encode_residual_vectors_avx2(const __m256i* r, const float* x, size_t valid,
                                           uint8_t& header, std::byte* body) {
  using B = BlockAvx2;
  alignas(32) uint32_t mag[kBlockValues];
  uint32_t signs = 0;
  __m256i rest = _mm256_setzero_si256();  // magnitudes but the first
  for (int g = 0; g < B::kVectors; ++g) {
    const __m256i m = _mm256_abs_epi32(r[g]);  // (2^31 for the most negative residual)
    _mm256_store_si256(reinterpret_cast<__m256i*>(mag + 8 * g), m);
    signs |= B::negatives(r[g]) << (8 * g);
    rest = _mm256_or_si256(rest, g == 0 ? _mm256_blend_epi32(m, _mm256_setzero_si256(), 1) : m);
  }
  const uint32_t or_rest = B::reduce_or(rest);
  const int32_t first = _mm256_cvtsi256_si32(r[0]);
  const int wp = std::bit_width(or_rest | mag[0]);
  if (wp == 0) {
    header = kZeroHeader;
    return 0;
  }
  const int wo = std::bit_width(or_rest);
  const size_t raw = x ? valid * sizeof(float) : SIZE_MAX, plain = planes_size(wp);
  const uint32_t stored_first = M == Mode::lossy ? FixedLengthEncoder::zigzag<uint32_t>(first)
                                                 : uint32_t(FloatOrderMap<float>::flip(first));
  const int k = M == Mode::lossy ? FixedLengthEncoder::byte_length(stored_first) : 4;
  const bool outlier_fits =
      M == Mode::lossless || (k <= kLossyOutlierMaxBytes && wo <= kLossyOutlierMaxWidth);
  const size_t outlier = size_t(k) + planes_size(wo);
  if (outlier_fits && outlier < plain) {
    if (outlier >= raw) return write_raw_avx2(x, valid, header, body);
    header = M == Mode::lossy ? lossy_outlier_header(k, wo) : lossless_outlier_header(wo);
    FixedLengthEncoder::store_bytes(body, stored_first, k);
    if (wo > 0) {
      mag[0] = 0;  // the first value lives in its own bytes
      core::store_le<uint32_t>(body + k, signs & ~1u);
      pack_planes_avx2(mag, wo, body + k + 4);
    }
    return outlier;
  }
  if (plain >= raw) return write_raw_avx2(x, valid, header, body);
  header = plain_header(wp);
  core::store_le<uint32_t>(body, signs);
  pack_planes_avx2(mag, wp, body + 4);
  return plain;
}

// Lorenzo, then the body, for a block already turned into integers q.
template <Mode M>
inline size_t encode_ints_avx2(const __m256i* q, const float* x, size_t valid, uint8_t& header,
                               std::byte* body) {
  __m256i r[BlockAvx2::kVectors];
  BlockAvx2::lorenzo(q, r);
  return encode_residual_vectors_avx2<M>(r, x, valid, header, body);
}

// The 32 values at x quantized into q; whether the bound accepted every one.
inline bool quantize_block_avx2(const float* x, const LinearQuantizer<float>& qz, __m256i* q) {
  const __m256 inv = _mm256_set1_ps(qz.inv_step()), step = _mm256_set1_ps(qz.step()),
               accept = _mm256_set1_ps(qz.accept());
  uint32_t ok = 0xFF;
  for (int g = 0; g < BlockAvx2::kVectors; ++g)
    ok &= BlockAvx2::quantize(_mm256_loadu_ps(x + 8 * g), inv, step, accept, q[g]);
  return ok == 0xFF;
}

// x holds 32 values (the last block padded by repeating its last valid value); valid is the
// real count, which only decides the raw size.
inline size_t encode_lossy_avx2(const float* x, size_t valid, const LinearQuantizer<float>& qz,
                                uint8_t& header, std::byte* body) {
  __m256i q[BlockAvx2::kVectors];
  if (!quantize_block_avx2(x, qz, q)) return write_raw_avx2(x, valid, header, body);
  return encode_ints_avx2<Mode::lossy>(q, x, valid, header, body);
}

// portable::quantize_block of 32 values: the integers into q, whether all were accepted.
inline bool quantize_avx2(const float* x, const LinearQuantizer<float>& qz, int32_t* q) {
  __m256i vq[BlockAvx2::kVectors];
  const bool ok = quantize_block_avx2(x, qz, vq);
  for (int g = 0; g < BlockAvx2::kVectors; ++g)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 8 * g), vq[g]);
  return ok;
}

// quantize_avx2, then Lorenzo: q, its residuals r and the ORs of their magnitudes (the
// homomorphic sums' quantize_qr); false, q and r unspecified, where a value was refused.
inline bool quantize_lorenzo_avx2(const float* x, const LinearQuantizer<float>& qz, int32_t* q,
                                  int32_t* r, uint32_t& or_q, uint32_t& or_r) {
  using B = BlockAvx2;
  __m256i vq[B::kVectors], vr[B::kVectors];
  if (!quantize_block_avx2(x, qz, vq)) return false;
  B::lorenzo(vq, vr);
  __m256i mags_q = _mm256_setzero_si256(), mags_r = _mm256_setzero_si256();
  for (int g = 0; g < B::kVectors; ++g) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + 8 * g), vq[g]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 8 * g), vr[g]);
    mags_q = _mm256_or_si256(mags_q, _mm256_abs_epi32(vq[g]));
    mags_r = _mm256_or_si256(mags_r, _mm256_abs_epi32(vr[g]));
  }
  or_q = B::reduce_or(mags_q);
  or_r = B::reduce_or(mags_r);
  return true;
}

inline size_t encode_lossless_avx2(const float* x, size_t valid, uint8_t& header,
                                   std::byte* body) {
  __m256i q[BlockAvx2::kVectors];
  for (int g = 0; g < BlockAvx2::kVectors; ++g)
    q[g] = BlockAvx2::flip(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 8 * g)));
  return encode_ints_avx2<Mode::lossless>(q, x, valid, header, body);
}

// The residuals of a zero / plain / outlier block (never raw).
template <Mode M>
inline void decode_residual_vectors_avx2(uint8_t header, const std::byte* body, __m256i* r) {
  using B = BlockAvx2;
  for (int g = 0; g < B::kVectors; ++g) r[g] = _mm256_setzero_si256();
  if (header == kZeroHeader) return;
  const BlockHeader hd = parse_header<float>(header, M);
  const std::byte* p = body;
  int32_t first = 0;
  if (hd.kind == BlockKind::outlier) {
    const uint32_t v = uint32_t(FixedLengthEncoder::load_bytes(p, hd.first_bytes));
    first = M == Mode::lossy ? int32_t(FixedLengthEncoder::unzigzag(v))
                             : FloatOrderMap<float>::flip(int32_t(v));
    p += hd.first_bytes;
  }
  if (hd.width > 0) {
    const uint32_t signs = core::load_le<uint32_t>(p);
    alignas(32) uint32_t mag[kBlockValues];
    unpack_planes_avx2(p + 4, hd.width, mag);
    for (int g = 0; g < B::kVectors; ++g) {
      const __m256i m = _mm256_load_si256(reinterpret_cast<const __m256i*>(mag + 8 * g));
      const __m256i neg = B::lanes_of(signs >> (8 * g));
      r[g] = _mm256_sub_epi32(_mm256_xor_si256(m, neg), neg);  // 0 - m where neg
    }
  }
  if (hd.kind == BlockKind::outlier) r[0] = _mm256_blend_epi32(r[0], _mm256_set1_epi32(first), 1);
}

// The same, prefix-summed back into the integers q.
template <Mode M>
inline void decode_ints_avx2(uint8_t header, const std::byte* body, __m256i* q) {
  decode_residual_vectors_avx2<M>(header, body, q);
  q[0] = BlockAvx2::scan(q[0], _mm256_setzero_si256());
  for (int g = 1; g < BlockAvx2::kVectors; ++g) q[g] = BlockAvx2::scan(q[g], q[g - 1]);
}

inline void decode_lossy_avx2(uint8_t header, const std::byte* body,
                              const LinearQuantizer<float>& qz, float* out) {
  __m256i q[BlockAvx2::kVectors];
  decode_ints_avx2<Mode::lossy>(header, body, q);
  const __m256 step = _mm256_set1_ps(qz.step());
  for (int g = 0; g < BlockAvx2::kVectors; ++g)
    _mm256_storeu_ps(out + 8 * g, _mm256_mul_ps(_mm256_cvtepi32_ps(q[g]), step));
}

inline void decode_lossless_avx2(uint8_t header, const std::byte* body, float* out) {
  __m256i q[BlockAvx2::kVectors];
  decode_ints_avx2<Mode::lossless>(header, body, q);
  for (int g = 0; g < BlockAvx2::kVectors; ++g)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * g), BlockAvx2::flip(q[g]));
}

}  // namespace commpress::codec::szp::detail

#endif
