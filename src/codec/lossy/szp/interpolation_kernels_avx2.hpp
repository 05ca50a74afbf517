// AVX2 kernels for the interpolation runs of step 2 and 4, for CPUs without AVX-512 (the
// x86-64-v3 build): the work of interpolation_kernels_avx512.hpp, 8 values at a time. AVX2
// has no two-source permute and no mask registers, so a group's every other (every fourth)
// float is gathered by in-lane shuffles and one cross-lane permute, merged back by blends,
// and lane masks are compare results (their sign bits read by movemask).
// The arithmetic is the portable path's (interpolation_quantizer.hpp), operation for
// operation and without fused multiply-adds, so codes and values are bit for bit the same
// (tests compare the two on every run kind). A group of 8 holding a value the bound refuses
// (encoder) or a stored value (decoder) is left to the portable path, which handles it and
// what follows in its block.
#pragma once

#if defined(__AVX2__) && !(defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__))

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/lossy/szp/interpolation_quantizer.hpp"
#include "codec/lossy/szp/interpolation_runs.hpp"

#define COMMPRESS_INTERPOLATION_KERNEL_LANES 8

namespace commpress::codec::szp::detail {

// Groups of 8 values of a run of step kStep: 8 kStep floats, from kStep vectors.
template <size_t kStep>
class StridedLanes {
  static_assert(kStep == 2 || kStep == 4);

 public:
  static constexpr size_t kLanes = 8, kSpan = kLanes * kStep;

  // How many groups of 8 of the run's values i0 .. i0 + m (the last one possibly partial)
  // the kernels may take: every float their whole vectors load or store, from 3 sd before
  // a group's first value to 3 sd + kSpan - 1 after it, lies in [0, len).
  static size_t groups(const InterpRun& r, size_t i0, size_t m, size_t len) {
    if (r.kind == RunKind::row && r.nd >= (size_t{1} << 30)) return 0;  // (32-bit lanes)
    const bool far = r.kind == RunKind::cubic || r.kind == RunKind::row;
    const ptrdiff_t reach = far ? ptrdiff_t(3 * r.sd) : ptrdiff_t(r.sd);
    const ptrdiff_t first = ptrdiff_t(r.j0 + kStep * i0);
    if (first - reach < 0) return 0;
    size_t k = (m + kLanes - 1) / kLanes;
    while (k && size_t(first + ptrdiff_t(kSpan * k) + reach) > len) --k;
    return k;
  }

  // How many of group g's lanes hold values of the m.
  static size_t lanes(size_t g, size_t m) { return std::min(kLanes, m - kLanes * g); }
  // All lanes' bits set in the first `own` lanes.
  static __m256 first_lanes(size_t own) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(own)), lane));
  }

  // The 8 floats at p[0], p[kStep], ..., p[7 kStep].
  static __m256 every(const float* p) {
    if constexpr (kStep == 2) {
      // In-lane: p0 p2 p8 p10 | p4 p6 p12 p14; then the middle 64-bit halves swapped.
      const __m256 t = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);
      return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), 0xD8));
    } else {
      // In-lane: a0 a0 b0 b0 | a4 a4 b4 b4 and c, d alike; then a0 b0 c0 d0 | a4 b4 c4 d4.
      const __m256 ab = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x00);
      const __m256 cd = _mm256_shuffle_ps(_mm256_loadu_ps(p + 16), _mm256_loadu_ps(p + 24), 0x00);
      const __m256 t = _mm256_shuffle_ps(ab, cd, 0x88);
      return _mm256_permutevar8x32_ps(t, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    }
  }

  // p[kStep t] = v[t] for t < 8, the floats between them kept.
  static void store(float* p, __m256 v) {
    for (size_t k = 0; k < kStep; ++k) {
      // Vector k holds values k (8 / kStep) ... at its floats 0, kStep, ...
      const int32_t a = int32_t(k * 8 / kStep);
      const __m256i spread =
          kStep == 2 ? _mm256_setr_epi32(a, a, a + 1, a + 1, a + 2, a + 2, a + 3, a + 3)
                     : _mm256_setr_epi32(a, a, a, a, a + 1, a + 1, a + 1, a + 1);
      const __m256 mine = _mm256_permutevar8x32_ps(v, spread);
      const __m256 old = _mm256_loadu_ps(p + 8 * k);
      _mm256_storeu_ps(p + 8 * k, kStep == 2 ? _mm256_blend_ps(old, mine, 0x55)
                                             : _mm256_blend_ps(old, mine, 0x11));
    }
  }

  // The predictions of the group whose first value is value i of run r, at p.
  static __m256 predict(const float* p, const InterpRun& r, size_t i) {
    const ptrdiff_t o1 = ptrdiff_t(r.sd), o3 = ptrdiff_t(3 * r.sd);
    const __m256 a1 = every(p - o1);
    if (r.kind == RunKind::left) return a1;
    const __m256 sum1 = _mm256_add_ps(a1, every(p + o1));
    const __m256 linear = _mm256_mul_ps(sum1, _mm256_set1_ps(0.5f));
    if (r.kind == RunKind::linear) return linear;
    const __m256 sum3 = _mm256_add_ps(every(p - o3), every(p + o3));
    const __m256 cubic = _mm256_mul_ps(
        _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(9.0f), sum1), sum3), _mm256_set1_ps(0.0625f));
    if (r.kind == RunKind::cubic) return cubic;
    // A row: its end values take the other formulas (detail::kind_at), lane by lane.
    const size_t s = r.stride, x0 = s + i * r.step;
    if (x0 >= 3 * s && x0 + 7 * r.step + 3 * s < r.nd) return cubic;
    const __m256i x = _mm256_add_epi32(
        _mm256_set1_epi32(int32_t(x0)),
        _mm256_mullo_epi32(_mm256_set1_epi32(int32_t(r.step)),
                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
    const __m256i nd = _mm256_set1_epi32(int32_t(r.nd));
    const __m256i near_start = _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(3 * s)), x);
    const __m256i inner_end =
        _mm256_cmpgt_epi32(nd, _mm256_add_epi32(x, _mm256_set1_epi32(int32_t(3 * s))));
    const __m256i not_last =
        _mm256_cmpgt_epi32(nd, _mm256_add_epi32(x, _mm256_set1_epi32(int32_t(s))));
    const __m256 pred = _mm256_blendv_ps(
        linear, cubic, _mm256_castsi256_ps(_mm256_andnot_si256(near_start, inner_end)));
    return _mm256_blendv_ps(a1, pred, _mm256_castsi256_ps(not_last));
  }
};

// The groups' values are written back only after all of them are predicted: along x a
// group's neighbours share vectors with the group before it, and reading them back from
// stores still in flight would stall (the loads straddle two stores).
inline constexpr size_t kMaxGroups = 64;

// Encodes values i0 .. i0 + m of run r (step kStep, finite neighbours, kind other than
// zero) 8 at a time, at most 8 kMaxGroups: the values from x, the neighbours from v (len
// floats, the same indices); their symbols into sym and, with keep, their reconstructions
// into v (the floats between them, and lanes past the m, written back as they were). Stops
// before the first group with a refused value; returns how many values it coded.
template <size_t kStep>
size_t quantize_strided(float* v, const float* x, size_t len, const InterpRun& r, size_t i0,
                        size_t m, float h, float inv, float accept, uint16_t* sym, bool keep) {
  using L = StridedLanes<kStep>;
  const size_t groups = std::min(kMaxGroups, L::groups(r, i0, m, len));
  const __m256 vh = _mm256_set1_ps(h), vinv = _mm256_set1_ps(inv);
  const __m256 vaccept = _mm256_set1_ps(accept), limit = _mm256_set1_ps(float(kRadius - 1));
  const __m256 magic = _mm256_set1_ps(1.5f * float(1 << 23));
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  const __m256i one = _mm256_set1_epi32(1);
  const size_t at = r.j0 + kStep * i0;
  float* p0 = v + at;
  const float* x0 = x + at;
  __m256 rc[kMaxGroups];
  size_t g = 0;
  for (; g < groups; ++g) {
    const float* p = p0 + L::kSpan * g;
    const size_t own = L::lanes(g, m);
    const __m256 pred = L::predict(p, r, i0 + L::kLanes * g);
    const __m256 val = L::every(x0 + L::kSpan * g);
    const __m256 y = _mm256_mul_ps(_mm256_sub_ps(val, pred), vinv);
    const __m256 in_range = _mm256_cmp_ps(_mm256_and_ps(y, magnitude), limit, _CMP_LT_OQ);
    const __m256 q = _mm256_sub_ps(_mm256_add_ps(y, magic), magic);
    const __m256 rcg = _mm256_add_ps(pred, _mm256_mul_ps(q, vh));
    const __m256 near = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(val, rcg), magnitude), vaccept,
                                      _CMP_LE_OQ);
    const unsigned want = (1u << own) - 1;
    if ((unsigned(_mm256_movemask_ps(_mm256_and_ps(in_range, near))) & want) != want) break;
    rc[g] = own == L::kLanes ? rcg : _mm256_blendv_ps(L::every(p), rcg, L::first_lanes(own));
    const __m256i k = _mm256_cvttps_epi32(q);
    const __m256i zz = _mm256_add_epi32(
        _mm256_xor_si256(_mm256_slli_epi32(k, 1), _mm256_srai_epi32(k, 31)), one);
    // (codes of values in range lie in [1, 2^16): the saturating pack keeps them)
    const __m128i s16 =
        _mm_packus_epi32(_mm256_castsi256_si128(zz), _mm256_extracti128_si256(zz, 1));
    if (own == L::kLanes) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(sym + L::kLanes * g), s16);
    } else {
      alignas(16) uint16_t part[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(part), s16);
      std::memcpy(sym + L::kLanes * g, part, own * sizeof(uint16_t));
    }
  }
  if (keep)
    for (size_t t = 0; t < g; ++t) L::store(p0 + L::kSpan * t, rc[t]);
  return std::min(m, L::kLanes * g);
}

// Decodes values i0 .. i0 + m of run r (step kStep, no stored value NaN or Inf, kind other
// than zero) into the slab v (len floats) 8 at a time from their symbols, at most 8
// kMaxGroups (lanes past the m written back as they were). Stops before the first group
// holding a stored value (symbol 0); returns how many values it decoded.
template <size_t kStep>
size_t reconstruct_strided(float* v, size_t len, const InterpRun& r, size_t i0, size_t m, float h,
                           const uint16_t* sym) {
  using L = StridedLanes<kStep>;
  const size_t groups = std::min(kMaxGroups, L::groups(r, i0, m, len));
  const __m256 vh = _mm256_set1_ps(h);
  const __m256i one = _mm256_set1_epi32(1);
  float* p0 = v + r.j0 + kStep * i0;
  __m256 val[kMaxGroups];
  size_t g = 0;
  for (; g < groups; ++g) {
    const size_t own = L::lanes(g, m);
    __m128i s16;
    if (own == L::kLanes) {
      s16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sym + L::kLanes * g));
    } else {
      alignas(16) uint16_t part[8] = {1, 1, 1, 1, 1, 1, 1, 1};  // (lanes past the m: not stored)
      std::memcpy(part, sym + L::kLanes * g, own * sizeof(uint16_t));
      s16 = _mm_load_si128(reinterpret_cast<const __m128i*>(part));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(s16, _mm_setzero_si128()))) break;
    const __m256i z = _mm256_sub_epi32(_mm256_cvtepu16_epi32(s16), one);
    const __m256i code =
        _mm256_xor_si256(_mm256_srli_epi32(z, 1),
                         _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(z, one)));
    const float* p = p0 + L::kSpan * g;
    const __m256 pred = L::predict(p, r, i0 + L::kLanes * g);
    const __m256 got = _mm256_add_ps(pred, _mm256_mul_ps(_mm256_cvtepi32_ps(code), vh));
    val[g] = own == L::kLanes ? got : _mm256_blendv_ps(L::every(p), got, L::first_lanes(own));
  }
  for (size_t t = 0; t < g; ++t) L::store(p0 + L::kSpan * t, val[t]);
  return std::min(m, L::kLanes * g);
}

}  // namespace commpress::codec::szp::detail

#endif
