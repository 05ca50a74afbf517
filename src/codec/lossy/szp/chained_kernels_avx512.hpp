// AVX-512 paths of szp-e's full blocks (entropy_chunk.cpp): szp's fused block kernels with
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

// Whether integer k reconstructs all 32 values within the bound, as the hysteresis check
// computes it (x - T(k) * step, compared with accept): szp-eh's shortcut for blocks that keep
// their carried integer.
template <class T>
inline bool all_within_avx512(const T* x, const LinearQuantizer<T>& qz, IntOfT<T> k) {
  using L = Lanes<T>;
  const VecOf<T> accept = broadcast(qz.accept());
  const VecOf<T> rk = broadcast(T(k) * qz.step());
  uint32_t ok = 0;
  for (int g = 0; g < L::kVectors; ++g) {
    const VecOf<T> xv = load(x + g * L::kPerVector);
    if constexpr (std::is_same_v<T, float>)
      ok |= uint32_t(_mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(xv, rk)), accept, _CMP_LE_OQ))
            << (g * L::kPerVector);
    else
      ok |= uint32_t(_mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_sub_pd(xv, rk)), accept, _CMP_LE_OQ))
            << (g * L::kPerVector);
  }
  return ok == 0xFFFFFFFFu;
}

// hysteresis_block (hysteresis_quantizer.hpp) on 32 values (padded), same integers.
template <class T>
inline bool quantize_hysteresis_avx512(const T* x, const LinearQuantizer<T>& qz,
                                       IntOfT<T>& carry, __m512i* q) {
  using L = Lanes<T>;
  using Int = IntOfT<T>;
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
  // The lanes that may keep integer k: one compare per vector.
  const __m512i one = L::set1(1);
  auto keeps = [&](Int k) {
    const __m512i c = L::set1(int64_t(k));
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
    return keep;
  };
  // Segment by segment: the carried integer holds up to the first lane that cannot keep it,
  // which takes its rounded integer and carries that on. A compare per change of the
  // integer, not a step per value; the integers are those of hysteresis_block's loop.
  alignas(64) Int rnv[kBlockValues];
  for (int g = 0; g < V; ++g) _mm512_store_si512(rnv + g * P, rn[g]);
  auto below = [](unsigned b) { return b >= 32 ? 0xFFFFFFFFu : (1u << b) - 1; };
  auto fill = [&](uint32_t lanes, Int k) {
    const __m512i v = L::set1(int64_t(k));
    for (int g = 0; g < V; ++g) {
      const uint32_t m = (lanes >> (g * P)) & L::kAllLanes;
      if constexpr (std::is_same_v<T, float>) q[g] = _mm512_mask_mov_epi32(q[g], __mmask16(m), v);
      else q[g] = _mm512_mask_mov_epi64(q[g], __mmask8(m), v);
    }
  };
  for (int g = 0; g < V; ++g) q[g] = _mm512_setzero_si512();
  unsigned from = 0;
  while (from < kBlockValues) {
    const uint32_t breaks = ~keeps(carry) & ~below(from);
    const unsigned to = breaks ? unsigned(__builtin_ctz(breaks)) : unsigned(kBlockValues);
    fill(below(to) & ~below(from), carry);
    if (to == kBlockValues) break;
    carry = rnv[to];
    fill(1u << to, carry);
    from = to + 1;
  }
  return true;
}

// The block's integers minus the prediction that szp's restart-in-every-block Lorenzo
// leaves to add: order 1 is szp's Lorenzo on q - q1; order 2 is it on the first differences
// d[i] = q[i] - q[i-1] (d[-1] = q1 - q2) minus d[-1].
template <class T>
inline void chained_operand(const __m512i* q, int order, IntOfT<T> q1, IntOfT<T> q2,
                            __m512i* v) {
  using L = Lanes<T>;
  const __m512i c1 = L::set1(int64_t(q1));
  if (order == 1) {
    for (int g = 0; g < L::kVectors; ++g) v[g] = L::sub(q[g], c1);
    return;
  }
  const __m512i dc = L::set1(int64_t(q1) - int64_t(q2));
  for (int g = 0; g < L::kVectors; ++g)
    v[g] = L::sub(L::sub(q[g], L::shift_in(q[g], g == 0 ? c1 : q[g - 1])), dc);
}

template <class T>
inline IntOfT<T> last_lane(__m512i v, int lane) {
  if constexpr (std::is_same_v<T, float>)
    return IntOfT<T>(_mm_cvtsi128_si32(
        _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_set1_epi32(lane), v))));
  else
    return IntOfT<T>(_mm_cvtsi128_si64(
        _mm512_castsi512_si128(_mm512_permutexvar_epi64(_mm512_set1_epi64(lane), v))));
}

// A full block from its integers q with the chunk's state (q1, q2): szp's encoder on
// chained_operand. Writes raw itself.
template <class T>
inline size_t encode_chained_avx512(const __m512i* q, int order, IntOfT<T> q1, IntOfT<T> q2,
                                    const T* x, size_t valid, uint8_t& header, std::byte* body) {
  __m512i v[Lanes<T>::kVectors];
  chained_operand<T>(q, order, q1, q2, v);
  return encode_ints<T, Mode::lossy>(v, x, valid, header, body);
}

// A full zero / plain / outlier block into out[0..32), advancing the state (q1, q2).
template <class T>
inline void decode_chained_avx512(uint8_t header, const std::byte* body, int order,
                                  const LinearQuantizer<T>& qz, IntOfT<T>& q1, IntOfT<T>& q2,
                                  T* out) {
  using L = Lanes<T>;
  constexpr int V = L::kVectors;
  __m512i q[V];
  decode_ints<T, Mode::lossy>(header, body, q);
  const __m512i c1 = L::set1(int64_t(q1));
  if (order == 1) {
    for (int g = 0; g < V; ++g) q[g] = L::add(q[g], c1);
  } else {  // q holds d - d[-1]: add it back, then sum the differences from q1
    const __m512i dc = L::set1(int64_t(q1) - int64_t(q2));
    for (int g = 0; g < V; ++g) q[g] = L::add(q[g], dc);
    q[0] = L::scan(q[0], c1);
    for (int g = 1; g < V; ++g) q[g] = L::scan(q[g], q[g - 1]);
  }
  const VecOf<T> step = broadcast(qz.step());
  for (int g = 0; g < V; ++g) store(out + g * L::kPerVector, L::reconstruct(q[g], step));
  q1 = last_lane<T>(q[V - 1], L::kPerVector - 1);
  q2 = last_lane<T>(q[V - 1], L::kPerVector - 2);
}

}  // namespace commpress::codec::szp::detail

#else
#define COMMPRESS_SZP_E_AVX512 0
#endif
