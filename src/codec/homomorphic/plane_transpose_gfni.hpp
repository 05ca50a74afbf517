// Bit-plane <-> lane conversion for narrow blocks (at most 8 planes) as one 8x8 bit-matrix
// transpose per 8 lanes (GF2P8AFFINEQB) instead of one pass per plane. A block's planes are
// a 8 x 32 bit matrix: plane j's u32 has bit i = bit j of lane i. Grouping lanes by 8 makes
// four 8 x 8 matrices, one per qword, which the affine instruction transposes at once.
//
// GFNI and AVX512-VBMI belong to no glibc-hwcaps level, so these functions carry them as a
// target attribute: they compile into every AVX-512 build (x86-64-v4 and above) and run only
// where kernel_dispatch.hpp found the CPU has them. Their callers reach them through an
// instantiation with Gfni = true inside a function of the same target (COMMPRESS_GFNI_TARGET),
// where everything inlines.
#pragma once

#include "core/host_device.hpp"

namespace commpress::codec::homomorphic::detail {
// Widest block the transposes handle.
inline constexpr int kNarrowPlanes = 8;
}  // namespace commpress::codec::homomorphic::detail

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__) && defined(__GNUC__) && !COMMPRESS_DEVICE_PASS
#define COMMPRESS_HOMOMORPHIC_GFNI 1
#define COMMPRESS_GFNI_TARGET __attribute__((target("gfni,avx512vbmi")))

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace commpress::codec::homomorphic::detail {

// gf2p8affine(unit, X) yields byte k of qword q = bit k of every byte of X's qword q, bytes
// taken in reverse (bit i from byte 7 - i): a transpose once X's bytes are reversed.
COMMPRESS_GFNI_TARGET inline __m256i transpose8x8(__m256i reversed) {
  const __m256i unit = _mm256_set1_epi64x(0x8040201008040201LL);
  return _mm256_gf2p8affine_epi64_epi8(unit, reversed, 0);
}

// Magnitudes of the 32 lanes, one byte each (byte l = lane l), from `width` <= 8 planes.
// Reads only the 4 * width plane bytes.
COMMPRESS_GFNI_TARGET inline __m256i lane_bytes_from_planes(const std::byte* planes, int width) {
  // qword q, byte 7 - j <- byte q of plane j (so the transpose puts plane j at bit j).
  const __m256i idx = _mm256_setr_epi8(28, 24, 20, 16, 12, 8, 4, 0, 29, 25, 21, 17, 13, 9, 5, 1,
                                       30, 26, 22, 18, 14, 10, 6, 2, 31, 27, 23, 19, 15, 11, 7, 3);
  const __mmask32 bytes = __mmask32((uint64_t(1) << (4 * width)) - 1);
  const __m256i raw = _mm256_maskz_loadu_epi8(bytes, planes);
  return transpose8x8(_mm256_permutexvar_epi8(idx, raw));
}

// The planes of 32 lane bytes: plane j's u32 at bytes 4j..4j+3 of the result (32 bytes, 8
// planes), and in `nonzero` bit j set when plane j has a bit set.
COMMPRESS_GFNI_TARGET inline __m256i planes_from_lane_bytes(__m256i lanes, uint32_t& nonzero) {
  // Reverse each qword's bytes so the transpose puts lane 8q + i at bit i of plane bytes.
  const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                       7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
  const __m256i t = transpose8x8(_mm256_shuffle_epi8(lanes, rev));  // qword q, byte j: plane j, byte q
  const uint32_t m = _mm256_test_epi8_mask(t, t);
  nonzero = (m | m >> 8 | m >> 16 | m >> 24) & 0xFF;
  // byte 4j + q <- qword q, byte j
  const __m256i idx = _mm256_setr_epi8(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27,
                                       4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
  return _mm256_permutexvar_epi8(idx, t);
}

// Lane bytes <-> the kVectors integer vectors of a block of T (16 x i32 or 8 x i64 lanes).
template <class T>
inline void vectors_from_lane_bytes(__m256i bytes, __m512i* v) {
  if constexpr (std::is_same_v<T, float>) {
    v[0] = _mm512_cvtepu8_epi32(_mm256_castsi256_si128(bytes));
    v[1] = _mm512_cvtepu8_epi32(_mm256_extracti128_si256(bytes, 1));
  } else {
    const __m128i lo = _mm256_castsi256_si128(bytes), hi = _mm256_extracti128_si256(bytes, 1);
    v[0] = _mm512_cvtepu8_epi64(lo);
    v[1] = _mm512_cvtepu8_epi64(_mm_srli_si128(lo, 8));
    v[2] = _mm512_cvtepu8_epi64(hi);
    v[3] = _mm512_cvtepu8_epi64(_mm_srli_si128(hi, 8));
  }
}

// Low byte of every lane (callers guarantee the values fit).
template <class T>
inline __m256i lane_bytes_from_vectors(const __m512i* v) {
  if constexpr (std::is_same_v<T, float>) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(v[0])),
                                   _mm512_cvtepi32_epi8(v[1]), 1);
  } else {
    const __m128i lo = _mm_unpacklo_epi64(_mm512_cvtepi64_epi8(v[0]), _mm512_cvtepi64_epi8(v[1]));
    const __m128i hi = _mm_unpacklo_epi64(_mm512_cvtepi64_epi8(v[2]), _mm512_cvtepi64_epi8(v[3]));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
}

}  // namespace commpress::codec::homomorphic::detail

#else
#define COMMPRESS_HOMOMORPHIC_GFNI 0
#endif
