// Fixed-length coding of a block's 32 residuals as a bit-shuffle: one 32-bit sign map (bit i
// = r[i] < 0) followed by `width` 32-bit planes, plane j holding bit j of |r[i]| at bit i.
// The SIMD paths produce exactly the bytes of the scalar path; all are exposed so tests can
// compare them on the same input.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__AVX2__) || defined(__AVX512F__)
// GCC 12 flags the intrinsics' own _mm*_undefined_* temporaries as maybe-uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#endif

#include "codec/lossy/szp/block_header.hpp"
#include "core/byte_io.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::szp {

struct FixedLengthEncoder {
  // Magnitude in the unsigned type: |INT_MIN| is representable there, so every residual has one.
  template <class Int>
  COMMPRESS_HD static std::make_unsigned_t<Int> magnitude(Int r) {
    using U = std::make_unsigned_t<Int>;
    return r < 0 ? U(0) - U(r) : U(r);
  }

  template <class Int>
  COMMPRESS_HD static uint32_t sign_map(const Int* r) {
    uint32_t s = 0;
    for (size_t i = 0; i < kBlockValues; ++i) s |= uint32_t(r[i] < 0) << i;
    return s;
  }

  // Bits needed for the largest magnitude (0 when all are zero).
  template <class U>
  COMMPRESS_HD static int width_of(U or_of_magnitudes) {
    return core::bit_width(or_of_magnitudes);
  }

  template <class U>
  COMMPRESS_HD static U zigzag(std::make_signed_t<U> v) {
    return (U(v) << 1) ^ U(v >> (sizeof(U) * 8 - 1));
  }
  template <class U>
  COMMPRESS_HD static std::make_signed_t<U> unzigzag(U u) {
    return std::make_signed_t<U>((u >> 1) ^ (U(0) - (u & 1)));
  }
  // Little-endian bytes needed to hold u, at least one.
  template <class U>
  COMMPRESS_HD static int byte_length(U u) {
    int w = width_of(u);
    return w == 0 ? 1 : (w + 7) / 8;
  }
  COMMPRESS_HD static void store_bytes(std::byte* out, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out[i] = std::byte(v >> (8 * i));
  }
  COMMPRESS_HD static uint64_t load_bytes(const std::byte* in, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(in[i]) << (8 * i);
    return v;
  }
};

namespace detail {

template <class U>
COMMPRESS_HD inline void pack_planes_scalar(const U* mag, int width, std::byte* out) {
  for (int j = 0; j < width; ++j) {
    uint32_t plane = 0;
    for (size_t i = 0; i < kBlockValues; ++i) plane |= uint32_t((mag[i] >> j) & 1) << i;
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

template <class U>
COMMPRESS_HD inline void unpack_planes_scalar(const std::byte* in, int width, U* mag) {
  for (size_t i = 0; i < kBlockValues; ++i) mag[i] = 0;
  for (int j = 0; j < width; ++j) {
    uint32_t plane = core::load_le<uint32_t>(in + 4 * j);
    for (size_t i = 0; i < kBlockValues; ++i) mag[i] |= U((plane >> i) & 1) << j;
  }
}

#if defined(__AVX2__)
inline void pack_planes_avx2(const uint32_t* mag, int width, std::byte* out) {
  __m256i v[4];
  for (int g = 0; g < 4; ++g) v[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mag + 8 * g));
  for (int j = 0; j < width; ++j) {
    // Move bit j into each lane's sign bit, where movemask collects it.
    __m128i shift = _mm_cvtsi32_si128(31 - j);
    uint32_t plane = 0;
    for (int g = 0; g < 4; ++g)
      plane |= uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_sll_epi32(v[g], shift))))
               << (8 * g);
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

inline void unpack_planes_avx2(const std::byte* in, int width, uint32_t* mag) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
  for (int j = 0; j < width; ++j) {
    uint32_t plane = core::load_le<uint32_t>(in + 4 * j);
    __m256i bit = _mm256_set1_epi32(int(1u << j));
    for (int g = 0; g < 4; ++g) {
      __m256i p = _mm256_set1_epi32(int(plane >> (8 * g)));
      __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(p, lane_bit), lane_bit);
      acc[g] = _mm256_or_si256(acc[g], _mm256_and_si256(set, bit));
    }
  }
  for (int g = 0; g < 4; ++g) _mm256_storeu_si256(reinterpret_cast<__m256i*>(mag + 8 * g), acc[g]);
}
#endif

#if defined(__AVX512F__)
inline void pack_planes_avx512(const uint32_t* mag, int width, std::byte* out) {
  __m512i lo = _mm512_loadu_si512(mag), hi = _mm512_loadu_si512(mag + 16);
  for (int j = 0; j < width; ++j) {
    __m512i bit = _mm512_set1_epi32(int(1u << j));
    uint32_t plane = uint32_t(_mm512_test_epi32_mask(lo, bit)) |
                     uint32_t(_mm512_test_epi32_mask(hi, bit)) << 16;
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

inline void pack_planes_avx512(const uint64_t* mag, int width, std::byte* out) {
  __m512i v[4];
  for (int g = 0; g < 4; ++g) v[g] = _mm512_loadu_si512(mag + 8 * g);
  for (int j = 0; j < width; ++j) {
    __m512i bit = _mm512_set1_epi64(int64_t(uint64_t(1) << j));
    uint32_t plane = 0;
    for (int g = 0; g < 4; ++g) plane |= uint32_t(_mm512_test_epi64_mask(v[g], bit)) << (8 * g);
    core::store_le<uint32_t>(out + 4 * j, plane);
  }
}

inline void unpack_planes_avx512(const std::byte* in, int width, uint32_t* mag) {
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  for (int j = 0; j < width; ++j) {
    uint32_t plane = core::load_le<uint32_t>(in + 4 * j);
    __m512i bit = _mm512_set1_epi32(int(1u << j));
    lo = _mm512_mask_or_epi32(lo, __mmask16(plane), lo, bit);
    hi = _mm512_mask_or_epi32(hi, __mmask16(plane >> 16), hi, bit);
  }
  _mm512_storeu_si512(mag, lo);
  _mm512_storeu_si512(mag + 16, hi);
}

inline void unpack_planes_avx512(const std::byte* in, int width, uint64_t* mag) {
  __m512i v[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                  _mm512_setzero_si512()};
  for (int j = 0; j < width; ++j) {
    uint32_t plane = core::load_le<uint32_t>(in + 4 * j);
    __m512i bit = _mm512_set1_epi64(int64_t(uint64_t(1) << j));
    for (int g = 0; g < 4; ++g) v[g] = _mm512_mask_or_epi64(v[g], __mmask8(plane >> (8 * g)), v[g], bit);
  }
  for (int g = 0; g < 4; ++g) _mm512_storeu_si512(mag + 8 * g, v[g]);
}
#endif

}  // namespace detail

// Writes `width` planes (4*width bytes) of the 32 magnitudes.
template <class U>
COMMPRESS_HD inline void pack_planes(const U* mag, int width, std::byte* out) {
#if COMMPRESS_DEVICE_PASS
  detail::pack_planes_scalar(mag, width, out);
#elif defined(__AVX512F__)
  detail::pack_planes_avx512(mag, width, out);
#elif defined(__AVX2__)
  if constexpr (sizeof(U) == 4) detail::pack_planes_avx2(mag, width, out);
  else detail::pack_planes_scalar(mag, width, out);
#else
  detail::pack_planes_scalar(mag, width, out);
#endif
}

// Reads `width` planes into 32 magnitudes (bits above width are zero).
template <class U>
COMMPRESS_HD inline void unpack_planes(const std::byte* in, int width, U* mag) {
#if COMMPRESS_DEVICE_PASS
  detail::unpack_planes_scalar(in, width, mag);
#elif defined(__AVX512F__)
  detail::unpack_planes_avx512(in, width, mag);
#elif defined(__AVX2__)
  if constexpr (sizeof(U) == 4) detail::unpack_planes_avx2(in, width, mag);
  else detail::unpack_planes_scalar(in, width, mag);
#else
  detail::unpack_planes_scalar(in, width, mag);
#endif
}

}  // namespace commpress::codec::szp
