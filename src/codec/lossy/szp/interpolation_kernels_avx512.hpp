// AVX-512 kernels for the interpolation runs of step 2 and 4 (interpolation_runs.hpp): the
// two finest levels' passes, where nearly all values lie. Such a run reads and writes every
// other (every fourth) float of a row, which the portable path does in four loops over
// scratch arrays (predict, gather, quantize, scatter); here 16 values at a time are taken
// from two (four) vectors by permutes, predicted, quantized or reconstructed and merged
// back in registers.
// The arithmetic is the portable path's (interpolation_quantizer.hpp), operation for
// operation and without fused multiply-adds, so codes and values are bit for bit the same
// (tests compare the two on every run kind). A group of 16 holding a value the bound refuses
// (encoder) or a stored value (decoder) is left to the portable path, which handles it and
// what follows in its block.
#pragma once

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "codec/lossy/szp/interpolation_quantizer.hpp"
#include "codec/lossy/szp/interpolation_runs.hpp"

#define COMMPRESS_INTERPOLATION_KERNEL_LANES 16

namespace commpress::codec::szp::detail {

// Groups of 16 values of a run of step kStep: 16 kStep floats, from kStep / 2 vectors.
template <size_t kStep>
class StridedLanes {
  static_assert(kStep == 2 || kStep == 4);

 public:
  static constexpr size_t kSpan = 16 * kStep;

  // How many groups of 16 of the run's values i0 .. i0 + m (the last one possibly partial)
  // the kernels may take: every float their whole vectors load or store, from 3 sd before
  // a group's first value to 3 sd + kSpan - 1 after it, lies in [0, len).
  static size_t groups(const InterpRun& r, size_t i0, size_t m, size_t len) {
    if (r.kind == RunKind::row && r.nd >= (size_t{1} << 30)) return 0;  // (32-bit lanes)
    const bool far = r.kind == RunKind::cubic || r.kind == RunKind::row;
    const ptrdiff_t reach = far ? ptrdiff_t(3 * r.sd) : ptrdiff_t(r.sd);
    const ptrdiff_t first = ptrdiff_t(r.j0 + kStep * i0);
    if (first - reach < 0) return 0;
    size_t k = (m + 15) / 16;
    while (k && size_t(first + ptrdiff_t(kSpan * k) + reach) > len) --k;
    return k;
  }

  // The lanes of group g that hold values of the m.
  static __mmask16 lanes(size_t g, size_t m) {
    const size_t left = m - 16 * g;
    return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  }

  // The 16 floats at p[0], p[kStep], ..., p[15 kStep].
  static __m512 every(const float* p) {
    if constexpr (kStep == 2) {
      const __m512i even =
          _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      return _mm512_permutex2var_ps(_mm512_loadu_ps(p), even, _mm512_loadu_ps(p + 16));
    } else {
      const __m512i fourth =
          _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
      const __m512 lo = _mm512_permutex2var_ps(_mm512_loadu_ps(p), fourth, _mm512_loadu_ps(p + 16));
      const __m512 hi =
          _mm512_permutex2var_ps(_mm512_loadu_ps(p + 32), fourth, _mm512_loadu_ps(p + 48));
      return _mm512_shuffle_f32x4(lo, hi, 0x44);  // lo's low half, then hi's
    }
  }

  // p[kStep t] = v[t] for t < 16, the floats between them kept.
  static void store(float* p, __m512 v) {
    if constexpr (kStep == 2) {
      const __m512i lo = _mm512_setr_epi32(0, 17, 1, 19, 2, 21, 3, 23, 4, 25, 5, 27, 6, 29, 7, 31);
      const __m512i hi =
          _mm512_setr_epi32(8, 17, 9, 19, 10, 21, 11, 23, 12, 25, 13, 27, 14, 29, 15, 31);
      _mm512_storeu_ps(p, _mm512_permutex2var_ps(v, lo, _mm512_loadu_ps(p)));
      _mm512_storeu_ps(p + 16, _mm512_permutex2var_ps(v, hi, _mm512_loadu_ps(p + 16)));
    } else {
      const __m512i q[4] = {
          _mm512_setr_epi32(0, 17, 18, 19, 1, 21, 22, 23, 2, 25, 26, 27, 3, 29, 30, 31),
          _mm512_setr_epi32(4, 17, 18, 19, 5, 21, 22, 23, 6, 25, 26, 27, 7, 29, 30, 31),
          _mm512_setr_epi32(8, 17, 18, 19, 9, 21, 22, 23, 10, 25, 26, 27, 11, 29, 30, 31),
          _mm512_setr_epi32(12, 17, 18, 19, 13, 21, 22, 23, 14, 25, 26, 27, 15, 29, 30, 31)};
      for (int k = 0; k < 4; ++k)
        _mm512_storeu_ps(p + 16 * k, _mm512_permutex2var_ps(v, q[k], _mm512_loadu_ps(p + 16 * k)));
    }
  }

  // The predictions of the group whose first value is value i of run r, at p.
  static __m512 predict(const float* p, const InterpRun& r, size_t i) {
    const ptrdiff_t o1 = ptrdiff_t(r.sd), o3 = ptrdiff_t(3 * r.sd);
    const __m512 a1 = every(p - o1);
    if (r.kind == RunKind::left) return a1;
    const __m512 sum1 = _mm512_add_ps(a1, every(p + o1));
    const __m512 linear = _mm512_mul_ps(sum1, _mm512_set1_ps(0.5f));
    if (r.kind == RunKind::linear) return linear;
    const __m512 sum3 = _mm512_add_ps(every(p - o3), every(p + o3));
    const __m512 cubic = _mm512_mul_ps(
        _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(9.0f), sum1), sum3), _mm512_set1_ps(0.0625f));
    if (r.kind == RunKind::cubic) return cubic;
    // A row: its end values take the other formulas (detail::kind_at), lane by lane.
    const size_t s = r.stride, x0 = s + i * r.step;
    if (x0 >= 3 * s && x0 + 15 * r.step + 3 * s < r.nd) return cubic;
    const __m512i x = _mm512_add_epi32(
        _mm512_set1_epi32(int32_t(x0)),
        _mm512_mullo_epi32(
            _mm512_set1_epi32(int32_t(r.step)),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
    const __m512i nd = _mm512_set1_epi32(int32_t(r.nd));
    const __mmask16 near_start = _mm512_cmplt_epi32_mask(x, _mm512_set1_epi32(int32_t(3 * s)));
    const __mmask16 near_end =
        _mm512_cmpge_epi32_mask(_mm512_add_epi32(x, _mm512_set1_epi32(int32_t(3 * s))), nd);
    const __mmask16 last =
        _mm512_cmpge_epi32_mask(_mm512_add_epi32(x, _mm512_set1_epi32(int32_t(s))), nd);
    const __m512 pred = _mm512_mask_blend_ps(near_start | near_end, cubic, linear);
    return _mm512_mask_blend_ps(last, pred, a1);
  }
};

// The groups' values are written back only after all of them are predicted: along x a
// group's neighbours share vectors with the group before it, and reading them back from
// stores still in flight would stall (the loads straddle two stores).
inline constexpr size_t kMaxGroups = 32;

// Encodes values i0 .. i0 + m of run r (step kStep, finite neighbours, kind other than
// zero) 16 at a time, at most 16 kMaxGroups: the values from x, the neighbours from v (len
// floats, the same indices); their symbols into sym and, with keep, their reconstructions
// into v (the floats between them, and lanes past the m, written back as they were). Stops
// before the first group with a refused value; returns how many values it coded.
template <size_t kStep>
size_t quantize_strided(float* v, const float* x, size_t len, const InterpRun& r, size_t i0,
                        size_t m, float h, float inv, float accept, uint16_t* sym, bool keep) {
  using L = StridedLanes<kStep>;
  const size_t groups = std::min(kMaxGroups, L::groups(r, i0, m, len));
  const __m512 vh = _mm512_set1_ps(h), vinv = _mm512_set1_ps(inv);
  const __m512 vaccept = _mm512_set1_ps(accept), limit = _mm512_set1_ps(float(kRadius - 1));
  const __m512 magic = _mm512_set1_ps(1.5f * float(1 << 23));
  const __m512i one = _mm512_set1_epi32(1);
  const size_t at = r.j0 + kStep * i0;
  float* p0 = v + at;
  const float* x0 = x + at;
  __m512 rc[kMaxGroups];
  size_t g = 0;
  for (; g < groups; ++g) {
    const float* p = p0 + L::kSpan * g;
    const __mmask16 own = L::lanes(g, m);
    const __m512 pred = L::predict(p, r, i0 + 16 * g);
    const __m512 val = L::every(x0 + L::kSpan * g);
    const __m512 y = _mm512_mul_ps(_mm512_sub_ps(val, pred), vinv);
    const __mmask16 in_range = _mm512_cmp_ps_mask(_mm512_abs_ps(y), limit, _CMP_LT_OQ);
    const __m512 q = _mm512_sub_ps(_mm512_add_ps(y, magic), magic);
    const __m512 rcg = _mm512_add_ps(pred, _mm512_mul_ps(q, vh));
    const __mmask16 near =
        _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(val, rcg)), vaccept, _CMP_LE_OQ);
    if (__mmask16(in_range & near & own) != own) break;
    rc[g] = own == 0xFFFF ? rcg : _mm512_mask_blend_ps(own, L::every(p), rcg);
    const __m512i k = _mm512_cvttps_epi32(q);
    const __m512i zz =
        _mm512_add_epi32(_mm512_xor_si512(_mm512_slli_epi32(k, 1), _mm512_srai_epi32(k, 31)), one);
    _mm256_mask_storeu_epi16(sym + 16 * g, own, _mm512_cvtepi32_epi16(zz));
  }
  if (keep)
    for (size_t t = 0; t < g; ++t) L::store(p0 + L::kSpan * t, rc[t]);
  return std::min(m, 16 * g);
}

// Decodes values i0 .. i0 + m of run r (step kStep, no stored value NaN or Inf, kind other
// than zero) into the slab v (len floats) 16 at a time from their symbols, at most 16
// kMaxGroups (lanes past the m written back as they were). Stops before the first group
// holding a stored value (symbol 0); returns how many values it decoded.
template <size_t kStep>
size_t reconstruct_strided(float* v, size_t len, const InterpRun& r, size_t i0, size_t m, float h,
                           const uint16_t* sym) {
  using L = StridedLanes<kStep>;
  const size_t groups = std::min(kMaxGroups, L::groups(r, i0, m, len));
  const __m512 vh = _mm512_set1_ps(h);
  const __m512i one = _mm512_set1_epi32(1);
  float* p0 = v + r.j0 + kStep * i0;
  __m512 val[kMaxGroups];
  size_t g = 0;
  for (; g < groups; ++g) {
    const __mmask16 own = L::lanes(g, m);
    const __m256i s16 = _mm256_maskz_loadu_epi16(own, sym + 16 * g);
    if (_mm256_mask_testn_epi16_mask(own, s16, s16)) break;
    const __m512i z = _mm512_sub_epi32(_mm512_cvtepu16_epi32(s16), one);
    const __m512i code =
        _mm512_xor_si512(_mm512_srli_epi32(z, 1),
                         _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_and_si512(z, one)));
    const float* p = p0 + L::kSpan * g;
    const __m512 pred = L::predict(p, r, i0 + 16 * g);
    const __m512 got = _mm512_add_ps(pred, _mm512_mul_ps(_mm512_cvtepi32_ps(code), vh));
    val[g] = own == 0xFFFF ? got : _mm512_mask_blend_ps(own, L::every(p), got);
  }
  for (size_t t = 0; t < g; ++t) L::store(p0 + L::kSpan * t, val[t]);
  return std::min(m, 16 * g);
}

}  // namespace commpress::codec::szp::detail

#endif
