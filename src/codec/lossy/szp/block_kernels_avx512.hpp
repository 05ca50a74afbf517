// Fused AVX-512 block kernels: one pass over a block does quantize (or order-map), bound
// check, Lorenzo, widths and bit-plane packing in registers, and the inverse for decoding.
// They must write and read exactly the bytes of the portable path in szp_block.cpp (tests
// compare the two on random blocks). A block is 2 vectors of 16 x 32-bit lanes (f32) or
// 4 vectors of 8 x 64-bit lanes (f64).
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <bit>
#include <cstring>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/fixed_length_encoder.hpp"  // brings <immintrin.h>
#include "codec/lossy/szp/float_order_map.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp::detail {

template <class T>
struct Lanes;
template <>
struct Lanes<float> {
  using Vec = __m512;
  static constexpr int kVectors = 2, kPerVector = 16;
  static __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
  static __m512i add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
  static __m512i abs(__m512i a) { return _mm512_abs_epi32(a); }
  static __m512i set1(int64_t v) { return _mm512_set1_epi32(int32_t(v)); }
  // [carry_last, a[0..14]]: a shifted up one lane, the lane below taken from `below`.
  static __m512i shift_in(__m512i a, __m512i below) { return _mm512_alignr_epi32(a, below, 15); }
  static uint32_t negatives(__m512i a) { return uint32_t(_mm512_movepi32_mask(a)); }
  static uint32_t test(__m512i a, __m512i bit) { return _mm512_test_epi32_mask(a, bit); }
  static __m512i or_where(__m512i a, uint32_t mask, __m512i bit) {
    return _mm512_mask_or_epi32(a, __mmask16(mask), a, bit);
  }
  static __m512i neg_where(__m512i a, uint32_t mask) {
    return _mm512_mask_sub_epi32(a, __mmask16(mask), _mm512_setzero_si512(), a);
  }
  static __m512i clear_lane0(__m512i a) { return _mm512_maskz_mov_epi32(0xFFFE, a); }
  static __m512i set_lane0(__m512i a, int64_t v) {
    return _mm512_mask_mov_epi32(a, 1, _mm512_set1_epi32(int32_t(v)));
  }
  static uint64_t reduce_or(__m512i a) { return uint32_t(_mm512_reduce_or_epi32(a)); }
  static int64_t lane0(__m512i a) { return _mm_cvtsi128_si32(_mm512_castsi512_si128(a)); }
  // Inclusive prefix sum inside one vector, plus the last lane of `carry` to every lane.
  static __m512i scan(__m512i a, __m512i carry) {
    const __m512i z = _mm512_setzero_si512();
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 15));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 14));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 12));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32(a, z, 8));
    return _mm512_add_epi32(a, _mm512_permutexvar_epi32(_mm512_set1_epi32(15), carry));
  }
  // FloatOrderMap::flip on every lane.
  static __m512i flip(__m512i a) {
    return _mm512_xor_si512(a, _mm512_and_si512(_mm512_srai_epi32(a, 31), _mm512_set1_epi32(0x7FFFFFFF)));
  }
  static __mmask16 quantize(__m512 x, __m512 inv, __m512 step, __m512 accept, __m512i& q) {
    const __m512 y = _mm512_mul_ps(x, inv);
    const __m512 limit = _mm512_set1_ps(float(LinearQuantizer<float>::kLimit));
    // Out-of-range (or NaN) lanes quantize to 0 like the portable path, and fail the check.
    __mmask16 in = _mm512_cmp_ps_mask(_mm512_abs_ps(y), limit, _CMP_LT_OQ);
    q = _mm512_maskz_cvtps_epi32(in, y);
    __m512 back = _mm512_mul_ps(_mm512_cvtepi32_ps(q), step);
    return _mm512_mask_cmp_ps_mask(in, _mm512_abs_ps(_mm512_sub_ps(x, back)), accept, _CMP_LE_OQ);
  }
  static __m512 reconstruct(__m512i q, __m512 step) { return _mm512_mul_ps(_mm512_cvtepi32_ps(q), step); }
  static constexpr uint32_t kAllLanes = 0xFFFF;
};

template <>
struct Lanes<double> {
  using Vec = __m512d;
  static constexpr int kVectors = 4, kPerVector = 8;
  static __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi64(a, b); }
  static __m512i add(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
  static __m512i abs(__m512i a) { return _mm512_abs_epi64(a); }
  static __m512i set1(int64_t v) { return _mm512_set1_epi64(v); }
  static __m512i shift_in(__m512i a, __m512i below) { return _mm512_alignr_epi64(a, below, 7); }
  static uint32_t negatives(__m512i a) { return uint32_t(_mm512_movepi64_mask(a)); }
  static uint32_t test(__m512i a, __m512i bit) { return _mm512_test_epi64_mask(a, bit); }
  static __m512i or_where(__m512i a, uint32_t mask, __m512i bit) {
    return _mm512_mask_or_epi64(a, __mmask8(mask), a, bit);
  }
  static __m512i neg_where(__m512i a, uint32_t mask) {
    return _mm512_mask_sub_epi64(a, __mmask8(mask), _mm512_setzero_si512(), a);
  }
  static __m512i clear_lane0(__m512i a) { return _mm512_maskz_mov_epi64(0xFE, a); }
  static __m512i set_lane0(__m512i a, int64_t v) {
    return _mm512_mask_mov_epi64(a, 1, _mm512_set1_epi64(v));
  }
  static uint64_t reduce_or(__m512i a) { return uint64_t(_mm512_reduce_or_epi64(a)); }
  static int64_t lane0(__m512i a) { return _mm_cvtsi128_si64(_mm512_castsi512_si128(a)); }
  static __m512i scan(__m512i a, __m512i carry) {
    const __m512i z = _mm512_setzero_si512();
    a = _mm512_add_epi64(a, _mm512_alignr_epi64(a, z, 7));
    a = _mm512_add_epi64(a, _mm512_alignr_epi64(a, z, 6));
    a = _mm512_add_epi64(a, _mm512_alignr_epi64(a, z, 4));
    return _mm512_add_epi64(a, _mm512_permutexvar_epi64(_mm512_set1_epi64(7), carry));
  }
  static __m512i flip(__m512i a) {
    return _mm512_xor_si512(
        a, _mm512_and_si512(_mm512_srai_epi64(a, 63), _mm512_set1_epi64(0x7FFFFFFFFFFFFFFF)));
  }
  static __mmask8 quantize(__m512d x, __m512d inv, __m512d step, __m512d accept, __m512i& q) {
    const __m512d y = _mm512_mul_pd(x, inv);
    const __m512d limit = _mm512_set1_pd(double(LinearQuantizer<double>::kLimit));
    __mmask8 in = _mm512_cmp_pd_mask(_mm512_abs_pd(y), limit, _CMP_LT_OQ);
    q = _mm512_maskz_cvtpd_epi64(in, y);
    __m512d back = _mm512_mul_pd(_mm512_cvtepi64_pd(q), step);
    return _mm512_mask_cmp_pd_mask(in, _mm512_abs_pd(_mm512_sub_pd(x, back)), accept, _CMP_LE_OQ);
  }
  static __m512d reconstruct(__m512i q, __m512d step) { return _mm512_mul_pd(_mm512_cvtepi64_pd(q), step); }
  static constexpr uint32_t kAllLanes = 0xFF;
};

template <class T>
using VecOf = typename Lanes<T>::Vec;

template <class T>
inline VecOf<T> load(const T* p) {
  if constexpr (std::is_same_v<T, float>) return _mm512_loadu_ps(p);
  else return _mm512_loadu_pd(p);
}
template <class T>
inline void store(T* p, VecOf<T> v) {
  if constexpr (std::is_same_v<T, float>) _mm512_storeu_ps(p, v);
  else _mm512_storeu_pd(p, v);
}
template <class T>
inline VecOf<T> broadcast(T v) {
  if constexpr (std::is_same_v<T, float>) return _mm512_set1_ps(v);
  else return _mm512_set1_pd(v);
}
template <class T>
inline __m512i load_bits(const T* p) {
  return _mm512_loadu_si512(p);
}

template <class T>
inline void store_planes(const __m512i* m, int width, std::byte* out) {
  using L = Lanes<T>;
  for (int j = 0; j < width; ++j) {
    const __m512i bit = L::set1(int64_t(uint64_t(1) << j));
    uint32_t plane = 0;
    for (int g = 0; g < L::kVectors; ++g) plane |= L::test(m[g], bit) << (g * L::kPerVector);
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

template <class T>
inline size_t write_raw(const T* x, size_t valid, uint8_t& header, std::byte* body) {
  header = kRawHeader;
  std::memcpy(body, x, valid * sizeof(T));
  return valid * sizeof(T);
}

// Lorenzo, widths, choice of kind and body writing for a block already turned into integers
// q; x (32 values, padded) is what a raw block stores.
template <class T, Mode M>
inline size_t encode_ints(const __m512i* q, const T* x, size_t valid, uint8_t& header,
                          std::byte* body) {
  using L = Lanes<T>;
  using U = typename BlockTraits<T>::UInt;
  constexpr int V = L::kVectors;
  __m512i r[V], m[V];
  uint32_t signs = 0;
  for (int g = 0; g < V; ++g) {
    r[g] = L::sub(q[g], L::shift_in(q[g], g == 0 ? _mm512_setzero_si512() : q[g - 1]));
    m[g] = L::abs(r[g]);  // wraps for the most negative residual, whose magnitude is 2^(bits-1)
    signs |= L::negatives(r[g]) << (g * L::kPerVector);
  }
  const __m512i m0_full = m[0];
  m[0] = L::clear_lane0(m[0]);
  __m512i rest = m[0];
  for (int g = 1; g < V; ++g) rest = _mm512_or_si512(rest, m[g]);
  const U or_rest = U(L::reduce_or(rest));
  const auto first = typename BlockTraits<T>::Int(L::lane0(q[0]));
  const int wp = int(std::bit_width(U(or_rest | FixedLengthEncoder::magnitude(first))));
  if (wp == 0) {
    header = kZeroHeader;
    return 0;
  }
  const int wo = int(std::bit_width(or_rest));
  const size_t raw = valid * sizeof(T), plain_size = planes_size(wp);
  U first_stored;
  int k;
  bool outlier_ok;
  if constexpr (M == Mode::lossy) {
    first_stored = FixedLengthEncoder::zigzag<U>(first);
    k = FixedLengthEncoder::byte_length(first_stored);
    outlier_ok = k <= kLossyOutlierMaxBytes && wo <= kLossyOutlierMaxWidth;
  } else {
    first_stored = U(FloatOrderMap<T>::flip(first));
    k = int(sizeof(T));
    outlier_ok = true;
  }
  const size_t outlier_size = k + planes_size(wo);
  if (outlier_ok && outlier_size < plain_size) {
    if (outlier_size >= raw) return write_raw(x, valid, header, body);
    header = M == Mode::lossy ? lossy_outlier_header(k, wo) : lossless_outlier_header(wo);
    FixedLengthEncoder::store_bytes(body, uint64_t(first_stored), k);
    if (wo > 0) {
      core::store_le<uint32_t>(body + k, signs & ~1u);
      store_planes<T>(m, wo, body + k + 4);
    }
    return outlier_size;
  }
  if (plain_size >= raw) return write_raw(x, valid, header, body);
  header = plain_header(wp);
  core::store_le<uint32_t>(body, signs);
  m[0] = m0_full;
  store_planes<T>(m, wp, body + 4);
  return plain_size;
}

// x holds 32 values (the last block padded by repeating its last valid value); valid is the
// real count, which only decides the raw size.
template <class T>
inline size_t encode_lossy_avx512(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                  uint8_t& header, std::byte* body) {
  using L = Lanes<T>;
  const VecOf<T> inv = broadcast(qz.inv_step()), step = broadcast(qz.step()),
                 accept = broadcast(qz.accept());
  __m512i q[L::kVectors];
  uint32_t ok = L::kAllLanes;
  for (int g = 0; g < L::kVectors; ++g)
    ok &= L::quantize(load(x + g * L::kPerVector), inv, step, accept, q[g]);
  if (ok != L::kAllLanes) return write_raw(x, valid, header, body);
  return encode_ints<T, Mode::lossy>(q, x, valid, header, body);
}

template <class T>
inline size_t encode_lossless_avx512(const T* x, size_t valid, uint8_t& header,
                                     std::byte* body) {
  using L = Lanes<T>;
  __m512i q[L::kVectors];
  for (int g = 0; g < L::kVectors; ++g) q[g] = L::flip(load_bits(x + g * L::kPerVector));
  return encode_ints<T, Mode::lossless>(q, x, valid, header, body);
}

// Residuals of a zero / plain / outlier block (never raw), prefix-summed back into q.
template <class T, Mode M>
inline void decode_ints(uint8_t header, const std::byte* body, __m512i* q) {
  using L = Lanes<T>;
  using U = typename BlockTraits<T>::UInt;
  constexpr int V = L::kVectors;
  for (int g = 0; g < V; ++g) q[g] = _mm512_setzero_si512();
  if (header == kZeroHeader) return;
  const BlockHeader hd = parse_header<T>(header, M);
  const std::byte* p = body;
  int64_t first = 0;
  if (hd.kind == BlockKind::outlier) {
    U v = U(FixedLengthEncoder::load_bytes(p, hd.first_bytes));
    if constexpr (M == Mode::lossy) first = FixedLengthEncoder::unzigzag(v);
    else first = FloatOrderMap<T>::flip(typename BlockTraits<T>::Int(v));
    p += hd.first_bytes;
  }
  if (hd.width > 0) {
    const uint32_t signs = core::load_le<uint32_t>(p);
    p += 4;
    for (int j = 0; j < hd.width; ++j) {
      const uint32_t plane = core::load_le<uint32_t>(p + 4 * j);
      const __m512i bit = L::set1(int64_t(uint64_t(1) << j));
      for (int g = 0; g < V; ++g) q[g] = L::or_where(q[g], plane >> (g * L::kPerVector), bit);
    }
    for (int g = 0; g < V; ++g) q[g] = L::neg_where(q[g], signs >> (g * L::kPerVector));
  }
  if (hd.kind == BlockKind::outlier) q[0] = L::set_lane0(q[0], first);
  q[0] = L::scan(q[0], _mm512_setzero_si512());
  for (int g = 1; g < V; ++g) q[g] = L::scan(q[g], q[g - 1]);
}

template <class T>
inline void decode_lossy_avx512(uint8_t header, const std::byte* body,
                                const LinearQuantizer<T>& qz, T* out) {
  using L = Lanes<T>;
  __m512i q[L::kVectors];
  decode_ints<T, Mode::lossy>(header, body, q);
  const VecOf<T> step = broadcast(qz.step());
  for (int g = 0; g < L::kVectors; ++g) store(out + g * L::kPerVector, L::reconstruct(q[g], step));
}

template <class T>
inline void decode_lossless_avx512(uint8_t header, const std::byte* body, T* out) {
  using L = Lanes<T>;
  __m512i q[L::kVectors];
  decode_ints<T, Mode::lossless>(header, body, q);
  for (int g = 0; g < L::kVectors; ++g) _mm512_storeu_si512(out + g * L::kPerVector, L::flip(q[g]));
}

}  // namespace commpress::codec::szp::detail

#endif
