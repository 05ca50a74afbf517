// Fused AVX-512 kernels for the hot f32 lossy path: one pass over a block does quantize,
// bound check, Lorenzo, widths and bit-plane packing in registers. They must write exactly the
// bytes of the portable path in szp_block.cpp (tests compare the two on random blocks).
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <immintrin.h>

#include <bit>
#include <cstring>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/fixed_length_encoder.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp::detail {

inline void store_planes_avx512(__m512i lo, __m512i hi, int width, std::byte* out) {
  for (int j = 0; j < width; ++j) {
    __m512i bit = _mm512_set1_epi32(int(1u << j));
    uint32_t plane = uint32_t(_mm512_test_epi32_mask(lo, bit)) |
                     uint32_t(_mm512_test_epi32_mask(hi, bit)) << 16;
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

// x holds 32 values (the last block padded by repeating its last valid value); valid is the
// real count, which only decides the raw size.
inline size_t encode_lossy_f32_avx512(const float* x, size_t valid,
                                      const LinearQuantizer<float>& qz, uint8_t& header,
                                      std::byte* body) {
  const __m512 inv = _mm512_set1_ps(qz.inv_step());
  const __m512 step = _mm512_set1_ps(qz.step());
  const __m512 accept = _mm512_set1_ps(qz.accept());
  const __m512 limit = _mm512_set1_ps(float(LinearQuantizer<float>::kLimit));
  const __m512i zero = _mm512_setzero_si512();

  __m512 x0 = _mm512_loadu_ps(x), x1 = _mm512_loadu_ps(x + 16);
  __m512 y0 = _mm512_mul_ps(x0, inv), y1 = _mm512_mul_ps(x1, inv);
  // Out-of-range (or NaN) lanes quantize to 0 like the scalar path, and fail the check below.
  __mmask16 in0 = _mm512_cmp_ps_mask(_mm512_abs_ps(y0), limit, _CMP_LT_OQ);
  __mmask16 in1 = _mm512_cmp_ps_mask(_mm512_abs_ps(y1), limit, _CMP_LT_OQ);
  __m512i q0 = _mm512_maskz_cvtps_epi32(in0, y0), q1 = _mm512_maskz_cvtps_epi32(in1, y1);
  __m512 b0 = _mm512_mul_ps(_mm512_cvtepi32_ps(q0), step);
  __m512 b1 = _mm512_mul_ps(_mm512_cvtepi32_ps(q1), step);
  __mmask16 ok0 = _mm512_mask_cmp_ps_mask(in0, _mm512_abs_ps(_mm512_sub_ps(x0, b0)), accept, _CMP_LE_OQ);
  __mmask16 ok1 = _mm512_mask_cmp_ps_mask(in1, _mm512_abs_ps(_mm512_sub_ps(x1, b1)), accept, _CMP_LE_OQ);
  const size_t raw = valid * sizeof(float);
  if ((ok0 & ok1) != 0xFFFF) {
    header = kRawHeader;
    std::memcpy(body, x, raw);
    return raw;
  }

  // r[i] = q[i] - q[i-1], r[0] = q[0]
  __m512i r0 = _mm512_sub_epi32(q0, _mm512_alignr_epi32(q0, zero, 15));
  __m512i r1 = _mm512_sub_epi32(q1, _mm512_alignr_epi32(q1, q0, 15));
  __m512i m0 = _mm512_abs_epi32(r0), m1 = _mm512_abs_epi32(r1);
  __m512i m0_rest = _mm512_maskz_mov_epi32(0xFFFE, m0);
  uint32_t or_rest = uint32_t(_mm512_reduce_or_epi32(_mm512_or_si512(m0_rest, m1)));
  int32_t first = _mm_cvtsi128_si32(_mm512_castsi512_si128(q0));
  uint32_t first_mag = FixedLengthEncoder::magnitude(first);
  int wp = int(std::bit_width(or_rest | first_mag));
  if (wp == 0) {
    header = kZeroHeader;
    return 0;
  }
  int wo = int(std::bit_width(or_rest));
  uint32_t zz = FixedLengthEncoder::zigzag<uint32_t>(first);
  int k = FixedLengthEncoder::byte_length(zz);
  size_t plain_size = planes_size(wp), outlier_size = k + planes_size(wo);
  uint32_t signs = uint32_t(_mm512_movepi32_mask(r0)) | uint32_t(_mm512_movepi32_mask(r1)) << 16;
  // |r| < 2^31 and |q| < 2^30 here, so the outlier form always fits (k <= 4, wo <= 31).
  if (outlier_size < plain_size) {
    if (outlier_size >= raw) {
      header = kRawHeader;
      std::memcpy(body, x, raw);
      return raw;
    }
    header = lossy_outlier_header(k, wo);
    FixedLengthEncoder::store_bytes(body, zz, k);
    if (wo > 0) {
      core::store_le<uint32_t>(body + k, signs & ~1u);
      store_planes_avx512(m0_rest, m1, wo, body + k + 4);
    }
    return outlier_size;
  }
  if (plain_size >= raw) {
    header = kRawHeader;
    std::memcpy(body, x, raw);
    return raw;
  }
  header = plain_header(wp);
  core::store_le<uint32_t>(body, signs);
  store_planes_avx512(m0, m1, wp, body + 4);
  return plain_size;
}

// Decodes a zero / plain / outlier block (never raw) into 32 values.
inline void decode_lossy_f32_avx512(uint8_t header, const std::byte* body,
                                    const LinearQuantizer<float>& qz, float* out) {
  const __m512 step = _mm512_set1_ps(qz.step());
  const __m512i zero = _mm512_setzero_si512();
  if (header == kZeroHeader) {
    // reconstruct(0) is +0.0 for any step
    _mm512_storeu_ps(out, _mm512_setzero_ps());
    _mm512_storeu_ps(out + 16, _mm512_setzero_ps());
    return;
  }
  BlockHeader hd = parse_header<float>(header, Mode::lossy);
  const std::byte* p = body;
  int32_t first = 0;
  if (hd.kind == BlockKind::outlier) {
    first = FixedLengthEncoder::unzigzag(uint32_t(FixedLengthEncoder::load_bytes(p, hd.first_bytes)));
    p += hd.first_bytes;
  }
  __m512i m0 = zero, m1 = zero;
  uint32_t signs = 0;
  if (hd.width > 0) {
    signs = core::load_le<uint32_t>(p);
    p += 4;
    for (int j = 0; j < hd.width; ++j) {
      uint32_t plane = core::load_le<uint32_t>(p + 4 * j);
      __m512i bit = _mm512_set1_epi32(int(1u << j));
      m0 = _mm512_mask_or_epi32(m0, __mmask16(plane), m0, bit);
      m1 = _mm512_mask_or_epi32(m1, __mmask16(plane >> 16), m1, bit);
    }
  }
  __m512i r0 = _mm512_mask_sub_epi32(m0, __mmask16(signs), zero, m0);
  __m512i r1 = _mm512_mask_sub_epi32(m1, __mmask16(signs >> 16), zero, m1);
  if (hd.kind == BlockKind::outlier) r0 = _mm512_mask_mov_epi32(r0, 1, _mm512_set1_epi32(first));
  // Inclusive prefix sum over 32 lanes (wrapping, like the portable path).
  r0 = _mm512_add_epi32(r0, _mm512_alignr_epi32(r0, zero, 15));
  r1 = _mm512_add_epi32(r1, _mm512_alignr_epi32(r1, zero, 15));
  r0 = _mm512_add_epi32(r0, _mm512_alignr_epi32(r0, zero, 14));
  r1 = _mm512_add_epi32(r1, _mm512_alignr_epi32(r1, zero, 14));
  r0 = _mm512_add_epi32(r0, _mm512_alignr_epi32(r0, zero, 12));
  r1 = _mm512_add_epi32(r1, _mm512_alignr_epi32(r1, zero, 12));
  r0 = _mm512_add_epi32(r0, _mm512_alignr_epi32(r0, zero, 8));
  r1 = _mm512_add_epi32(r1, _mm512_alignr_epi32(r1, zero, 8));
  r1 = _mm512_add_epi32(r1, _mm512_permutexvar_epi32(_mm512_set1_epi32(15), r0));
  _mm512_storeu_ps(out, _mm512_mul_ps(_mm512_cvtepi32_ps(r0), step));
  _mm512_storeu_ps(out + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(r1), step));
}

}  // namespace commpress::codec::szp::detail

#endif
