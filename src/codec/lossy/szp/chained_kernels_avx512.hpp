// AVX-512 paths of szp-e's order-1 blocks (entropy_chunk.cpp): szp's fused block kernels with
// the carried integer subtracted before Lorenzo and added back after the prefix sum, so they
// write and read exactly the bytes of the portable path (szp_entropy_test compares frames of
// both on the same data), and the hysteresis quantizer's checks on whole vectors.
#pragma once

#include "codec/lossy/szp/block_kernels_avx512.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define COMMPRESS_SZP_E_AVX512 1

namespace commpress::codec::szp::detail {

template <class T>
using IntOfT = typename BlockTraits<T>::Int;

// Rounded integers of 32 values (padded); false when one fails the quantizer's check.
template <class T>
inline bool quantize_rounded_avx512(const T* x, const LinearQuantizer<T>& qz, __m512i* q) {
  using L = Lanes<T>;
  const VecOf<T> inv = broadcast(qz.inv_step()), step = broadcast(qz.step()),
                 accept = broadcast(qz.accept());
  uint32_t ok = L::kAllLanes;
  for (int g = 0; g < L::kVectors; ++g)
    ok &= L::quantize(load(x + g * L::kPerVector), inv, step, accept, q[g]);
  return ok == L::kAllLanes;
}

// hysteresis_block (hysteresis_quantizer.hpp) on 32 values (padded), same integers.
template <class T>
inline bool quantize_hysteresis_avx512(const T* x, const LinearQuantizer<T>& qz,
                                       IntOfT<T>& carry, __m512i* q) {
  using L = Lanes<T>;
  using Int = IntOfT<T>;
  using U = std::make_unsigned_t<Int>;
  constexpr int V = L::kVectors, P = L::kPerVector;
  const VecOf<T> inv = broadcast(qz.inv_step()), step = broadcast(qz.step()),
                 accept = broadcast(qz.accept());
  const VecOf<T> limit = broadcast(T(LinearQuantizer<T>::kLimit - 1));
  __m512i lo[V], rn[V];
  uint32_t fit0 = 0, fit1 = 0, ok = 0;
  for (int g = 0; g < V; ++g) {
    const VecOf<T> xv = load(x + g * P);
    uint32_t in, f0, f1, fr;
    if constexpr (std::is_same_v<T, float>) {
      const __m512 y = _mm512_mul_ps(xv, inv);
      in = _mm512_cmp_ps_mask(_mm512_abs_ps(y), limit, _CMP_LT_OQ);
      lo[g] = _mm512_maskz_cvtps_epi32(
          in, _mm512_roundscale_ps(y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
      rn[g] = _mm512_maskz_cvtps_epi32(in, y);
      const __m512i hi = _mm512_add_epi32(lo[g], _mm512_set1_epi32(1));
      auto err = [&](__m512i k) {
        return _mm512_abs_ps(_mm512_sub_ps(xv, _mm512_mul_ps(_mm512_cvtepi32_ps(k), step)));
      };
      f0 = _mm512_cmp_ps_mask(err(lo[g]), accept, _CMP_LE_OQ);
      f1 = _mm512_cmp_ps_mask(err(hi), accept, _CMP_LE_OQ);
      fr = _mm512_cmp_ps_mask(err(rn[g]), accept, _CMP_LE_OQ);
    } else {
      const __m512d y = _mm512_mul_pd(xv, inv);
      in = _mm512_cmp_pd_mask(_mm512_abs_pd(y), limit, _CMP_LT_OQ);
      lo[g] = _mm512_maskz_cvtpd_epi64(
          __mmask8(in), _mm512_roundscale_pd(y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
      rn[g] = _mm512_maskz_cvtpd_epi64(__mmask8(in), y);
      const __m512i hi = _mm512_add_epi64(lo[g], _mm512_set1_epi64(1));
      auto err = [&](__m512i k) {
        return _mm512_abs_pd(_mm512_sub_pd(xv, _mm512_mul_pd(_mm512_cvtepi64_pd(k), step)));
      };
      f0 = _mm512_cmp_pd_mask(err(lo[g]), accept, _CMP_LE_OQ);
      f1 = _mm512_cmp_pd_mask(err(hi), accept, _CMP_LE_OQ);
      fr = _mm512_cmp_pd_mask(err(rn[g]), accept, _CMP_LE_OQ);
    }
    fit0 |= f0 << (g * P);
    fit1 |= f1 << (g * P);
    ok |= (in & fr) << (g * P);
  }
  if (ok != 0xFFFFFFFFu) return false;
  // Every lane keeps the carried integer: one compare per vector.
  const __m512i c = L::set1(int64_t(carry)), one = L::set1(1);
  uint32_t keep = 0;
  for (int g = 0; g < V; ++g) {
    uint32_t eq0, eq1;
    if constexpr (std::is_same_v<T, float>) {
      eq0 = _mm512_cmpeq_epi32_mask(c, lo[g]);
      eq1 = _mm512_cmpeq_epi32_mask(c, _mm512_add_epi32(lo[g], one));
    } else {
      eq0 = _mm512_cmpeq_epi64_mask(c, lo[g]);
      eq1 = _mm512_cmpeq_epi64_mask(c, _mm512_add_epi64(lo[g], one));
    }
    keep |= ((eq0 & (fit0 >> (g * P))) | (eq1 & (fit1 >> (g * P)))) << (g * P);
  }
  if (keep == 0xFFFFFFFFu) {
    for (int g = 0; g < V; ++g) q[g] = c;
    return true;
  }
  alignas(64) Int lov[kBlockValues], rnv[kBlockValues], qv[kBlockValues];
  for (int g = 0; g < V; ++g) {
    _mm512_store_si512(lov + g * P, lo[g]);
    _mm512_store_si512(rnv + g * P, rn[g]);
  }
  for (size_t i = 0; i < kBlockValues; ++i) {
    const U d = U(carry) - U(lov[i]);
    const bool kept = d <= 1 && (((d ? fit1 : fit0) >> i) & 1);
    carry = kept ? carry : rnv[i];
    qv[i] = carry;
  }
  for (int g = 0; g < V; ++g) q[g] = _mm512_load_si512(qv + g * P);
  return true;
}

// Order-1 block from its integers: szp's encoder on q - carry. Writes raw itself.
template <class T>
inline size_t encode_chained_avx512(__m512i* q, IntOfT<T> carry, const T* x, size_t valid,
                                    uint8_t& header, std::byte* body) {
  using L = Lanes<T>;
  const __m512i c = L::set1(int64_t(carry));
  __m512i d[L::kVectors];
  for (int g = 0; g < L::kVectors; ++g) d[g] = L::sub(q[g], c);
  return encode_ints<T, Mode::lossy>(d, x, valid, header, body);
}

// Order-1 zero / plain / outlier block into out[0..32); leaves the block's last integer in carry.
template <class T>
inline void decode_chained_avx512(uint8_t header, const std::byte* body,
                                  const LinearQuantizer<T>& qz, IntOfT<T>& carry, T* out) {
  using L = Lanes<T>;
  __m512i q[L::kVectors];
  decode_ints<T, Mode::lossy>(header, body, q);
  const __m512i c = L::set1(int64_t(carry));
  const VecOf<T> step = broadcast(qz.step());
  for (int g = 0; g < L::kVectors; ++g) {
    q[g] = L::add(q[g], c);
    store(out + g * L::kPerVector, L::reconstruct(q[g], step));
  }
  if constexpr (std::is_same_v<T, float>)
    carry = IntOfT<T>(_mm_cvtsi128_si32(
        _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_set1_epi32(15), q[1]))));
  else
    carry = IntOfT<T>(_mm_cvtsi128_si64(_mm512_castsi512_si128(
        _mm512_permutexvar_epi64(_mm512_set1_epi64(7), q[3]))));
}

}  // namespace commpress::codec::szp::detail

#else
#define COMMPRESS_SZP_E_AVX512 0
#endif
