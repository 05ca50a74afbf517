// AVX-512 residual-level block coding for f32 and f64 on the szp kernels' lane helpers: the
// middle of a homomorphic sum needs the residuals of a block, not its values, so these stop
// where the szp kernels would prefix-sum (decode) or start after Lorenzo (encode). They must
// produce exactly what szp::decode_residuals / szp::encode_residuals produce in lossy mode
// (tests/unit/homomorphic_test.cpp compares them on random residuals). Where a function takes
// `bool Gfni`, true uses the plane transposes of plane_transpose_gfni.hpp: only from a caller
// compiled for them (COMMPRESS_GFNI_TARGET) and only where the CPU has them; the bytes are the
// same either way.
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <array>
#include <algorithm>
#include <bit>
#include <type_traits>

#include "codec/homomorphic/plane_transpose_gfni.hpp"
#include "codec/lossy/szp/block_kernels_avx512.hpp"
#include "codec/lossy/szp/szp_block.hpp"

namespace commpress::codec::homomorphic::detail {

template <class T>
constexpr std::array<szp::BlockHeader, 256> make_lossy_header_table() {
  std::array<szp::BlockHeader, 256> t{};
  for (int h = 0; h < 256; ++h) t[h] = szp::parse_header<T>(uint8_t(h), szp::Mode::lossy);
  return t;
}
// parse_header by lookup: the decoder's branches on the header byte cost more than a load.
template <class T>
inline constexpr std::array<szp::BlockHeader, 256> kLossyHeaders = make_lossy_header_table<T>();

// FixedLengthEncoder::load_bytes without a loop: a masked load never touches the bytes past k.
inline uint64_t load_first_bytes(const std::byte* p, int k) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  return uint64_t(_mm_cvtsi128_si64(_mm_maskz_loadu_epi8(__mmask16((1u << k) - 1), p)));
#else
  return szp::FixedLengthEncoder::load_bytes(p, k);
#endif
}

// The 32 residuals of a zero / plain / outlier block, in registers.
template <class T, bool Gfni = false>
inline void decode_residual_vectors(uint8_t header, const std::byte* body, __m512i* v) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  using Fle = szp::FixedLengthEncoder;
  constexpr int V = L::kVectors;
  for (int g = 0; g < V; ++g) v[g] = _mm512_setzero_si512();
  if (header != szp::kZeroHeader) {
    const szp::BlockHeader hd = kLossyHeaders<T>[header];
    const std::byte* p = body;
    int64_t first = 0;
    if (hd.kind == szp::BlockKind::outlier) {
      first = Fle::unzigzag(U(load_first_bytes(p, hd.first_bytes)));
      p += hd.first_bytes;
    }
    if (hd.width > 0) {
      const uint32_t signs = core::load_le<uint32_t>(p);
      p += 4;
#if COMMPRESS_HOMOMORPHIC_GFNI
      if (Gfni && hd.width <= kNarrowPlanes) {
        vectors_from_lane_bytes<T>(lane_bytes_from_planes(p, hd.width), v);
      } else
#endif
      {
        for (int j = 0; j < hd.width; ++j) {
          const uint32_t plane = core::load_le<uint32_t>(p + 4 * j);
          const __m512i bit = L::set1(int64_t(uint64_t(1) << j));
          for (int g = 0; g < V; ++g) v[g] = L::or_where(v[g], plane >> (g * L::kPerVector), bit);
        }
      }
      for (int g = 0; g < V; ++g) v[g] = L::neg_where(v[g], signs >> (g * L::kPerVector));
    }
    if (hd.kind == szp::BlockKind::outlier) v[0] = L::set_lane0(v[0], first);
  }
}

template <class T>
inline void decode_residuals_avx512(uint8_t header, const std::byte* body, szp::IntOf<T>* r) {
  using L = szp::detail::Lanes<T>;
  __m512i v[L::kVectors];
  decode_residual_vectors<T>(header, body, v);
  for (int g = 0; g < L::kVectors; ++g) _mm512_storeu_si512(r + g * L::kPerVector, v[g]);
}

// Zero, else the smaller of plain and outlier (plain on a tie; outlier only with a first
// value of at most 4 bytes and a width of at most 31). Returns the body size; like every szp
// body writer it may use all max_body_size<T>(lossy) bytes at body as room.
template <class T>
inline size_t encode_residual_vectors(const __m512i* v, uint8_t& header, std::byte* body) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  using Fle = szp::FixedLengthEncoder;
  constexpr int V = L::kVectors;
  __m512i m[V];
  uint32_t signs = 0;
  for (int g = 0; g < V; ++g) {
    m[g] = L::abs(v[g]);  // the most negative residual keeps its magnitude 2^(bits-1) unsigned
    signs |= L::negatives(v[g]) << (g * L::kPerVector);
  }
  const szp::IntOf<T> first = szp::IntOf<T>(L::lane0(v[0]));
  const __m512i m0_full = m[0];
  m[0] = L::clear_lane0(m[0]);
  __m512i rest = m[0];
  for (int g = 1; g < V; ++g) rest = _mm512_or_si512(rest, m[g]);
  const U or_rest = U(L::reduce_or(rest));
  const int wp = int(std::bit_width(U(or_rest | Fle::magnitude(first))));
  if (wp == 0) {
    header = szp::kZeroHeader;
    return 0;
  }
  const int wo = int(std::bit_width(or_rest));
  const U zz = Fle::zigzag<U>(first);
  const int k = Fle::byte_length(zz);
  const size_t plain_size = szp::planes_size(wp), outlier_size = k + szp::planes_size(wo);
  if (k <= szp::kLossyOutlierMaxBytes && wo <= szp::kLossyOutlierMaxWidth &&
      outlier_size < plain_size) {
    header = szp::lossy_outlier_header(k, wo);
    core::store_le<uint32_t>(body, uint32_t(zz));  // k <= 4 bytes, then the planes overwrite
    if (wo > 0) {
      core::store_le<uint32_t>(body + k, signs & ~1u);
      szp::detail::store_planes<T>(m, wo, body + k + 4);
    }
    return outlier_size;
  }
  header = szp::plain_header(wp);
  core::store_le<uint32_t>(body, signs);
  m[0] = m0_full;
  szp::detail::store_planes<T>(m, wp, body + 4);
  return plain_size;
}

template <class T>
inline size_t encode_residuals_avx512(const szp::IntOf<T>* r, uint8_t& header, std::byte* body) {
  using L = szp::detail::Lanes<T>;
  __m512i v[L::kVectors];
  for (int g = 0; g < L::kVectors; ++g) v[g] = _mm512_loadu_si512(r + g * L::kPerVector);
  return encode_residual_vectors<T>(v, header, body);
}

// True when every lane selected by `lanes` (bit i = lane i) has a magnitude below 2^bits.
// No horizontal reduction: one unsigned compare per vector.
template <class T>
inline bool magnitudes_below(const __m512i* v, int bits, uint32_t lanes = ~0u) {
  using L = szp::detail::Lanes<T>;
  if (bits >= szp::BlockTraits<T>::kBits) return true;
  const __m512i limit = L::set1(int64_t(uint64_t(1) << bits));
  uint32_t over = 0;
  for (int g = 0; g < L::kVectors; ++g) {
    if constexpr (std::is_same_v<T, float>)
      over |= uint32_t(_mm512_cmpge_epu32_mask(L::abs(v[g]), limit)) << (g * L::kPerVector);
    else
      over |= uint32_t(_mm512_cmpge_epu64_mask(L::abs(v[g]), limit)) << (g * L::kPerVector);
  }
  return (over & lanes) == 0;
}

// encode_residual_vectors, by plane transposes (Gfni) when lanes 1..31 fit kNarrowPlanes bits.
template <class T, bool Gfni = false>
inline size_t encode_bounded_vectors(const __m512i* v, uint8_t& header, std::byte* body) {
#if COMMPRESS_HOMOMORPHIC_GFNI
  if (Gfni && magnitudes_below<T>(v, kNarrowPlanes, ~1u)) {
    using L = szp::detail::Lanes<T>;
    using U = typename szp::BlockTraits<T>::UInt;
    using Fle = szp::FixedLengthEncoder;
    constexpr int V = L::kVectors;
    __m512i m[V];
    uint32_t signs = 0;
    for (int g = 0; g < V; ++g) {
      m[g] = L::abs(v[g]);
      signs |= L::negatives(v[g]) << (g * L::kPerVector);
    }
    const szp::IntOf<T> first = szp::IntOf<T>(L::lane0(v[0]));
    m[0] = L::clear_lane0(m[0]);
    uint32_t nonzero;
    const __m256i planes = planes_from_lane_bytes(lane_bytes_from_vectors<T>(m), nonzero);
    const int wo = int(std::bit_width(nonzero));
    const U mag0 = Fle::magnitude(first);
    const int wp = std::max(wo, int(std::bit_width(mag0)));
    if (wp == 0) {
      header = szp::kZeroHeader;
      return 0;
    }
    const U zz = Fle::zigzag<U>(first);
    const int k = Fle::byte_length(zz);
    const size_t plain_size = szp::planes_size(wp), outlier_size = k + szp::planes_size(wo);
    if (k <= szp::kLossyOutlierMaxBytes && wo <= szp::kLossyOutlierMaxWidth &&
        outlier_size < plain_size) {
      header = szp::lossy_outlier_header(k, wo);
      core::store_le<uint32_t>(body, uint32_t(zz));  // k <= 4 bytes; the sign map overwrites
      if (wo > 0) {
        core::store_le<uint32_t>(body + k, signs & ~1u);
        _mm256_mask_storeu_epi8(body + k + 4, __mmask32((uint64_t(1) << (4 * wo)) - 1), planes);
      }
      return outlier_size;
    }
    if (wp <= kNarrowPlanes) {
      // Lane 0 joins the planes: bit j of its magnitude into bit 0 of plane j.
      const __m256i lane0 = _mm256_and_si256(
          _mm256_srlv_epi32(_mm256_set1_epi32(int(mag0)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
          _mm256_set1_epi32(1));
      header = szp::plain_header(wp);
      core::store_le<uint32_t>(body, signs);
      _mm256_mask_storeu_epi8(body + 4, __mmask32((uint64_t(1) << (4 * wp)) - 1),
                              _mm256_or_si256(planes, lane0));
      return plain_size;
    }
  }
#endif
  return encode_residual_vectors<T>(v, header, body);
}

// Codes the sum of two coded blocks (zero / plain / outlier) whose sum needs no range check,
// in registers, as encode_residuals would; returns the body size.
template <class T, bool Gfni = false>
inline size_t sum_coded_avx512(uint8_t ha, const std::byte* a, uint8_t hb, const std::byte* b,
                               uint8_t& header, std::byte* body) {
  using L = szp::detail::Lanes<T>;
  __m512i va[L::kVectors], vb[L::kVectors];
  decode_residual_vectors<T, Gfni>(ha, a, va);
  decode_residual_vectors<T, Gfni>(hb, b, vb);
  for (int g = 0; g < L::kVectors; ++g) va[g] = L::add(va[g], vb[g]);
  return encode_bounded_vectors<T, Gfni>(va, header, body);
}

// szp::quantize_block on a full block, then Lorenzo, in registers: q and r. False exactly when
// quantize_block fails (q and r are then meaningless).
template <class T>
inline bool quantize_vectors(const T* x, const szp::LinearQuantizer<T>& qz, __m512i* q,
                             __m512i* r) {
  using L = szp::detail::Lanes<T>;
  constexpr int V = L::kVectors;
  const auto inv = szp::detail::broadcast(qz.inv_step());
  const auto step = szp::detail::broadcast(qz.step());
  const auto accept = szp::detail::broadcast(qz.accept());
  uint32_t ok = L::kAllLanes;
  for (int g = 0; g < V; ++g)
    ok &= L::quantize(szp::detail::load(x + g * L::kPerVector), inv, step, accept, q[g]);
  if (ok != L::kAllLanes) return false;
  for (int g = 0; g < V; ++g)
    r[g] = L::sub(q[g], L::shift_in(q[g], g == 0 ? _mm512_setzero_si512() : q[g - 1]));
  return true;
}

template <class T>
inline typename szp::BlockTraits<T>::UInt or_of_magnitudes(const __m512i* v) {
  using L = szp::detail::Lanes<T>;
  __m512i acc = _mm512_setzero_si512();
  for (int g = 0; g < L::kVectors; ++g) acc = _mm512_or_si512(acc, L::abs(v[g]));
  return typename szp::BlockTraits<T>::UInt(L::reduce_or(acc));
}

template <class T>
inline bool quantize_avx512(const T* x, const szp::LinearQuantizer<T>& qz, szp::IntOf<T>* q,
                            szp::IntOf<T>* r, typename szp::BlockTraits<T>::UInt& or_q,
                            typename szp::BlockTraits<T>::UInt& or_r) {
  using L = szp::detail::Lanes<T>;
  __m512i vq[L::kVectors], vr[L::kVectors];
  if (!quantize_vectors<T>(x, qz, vq, vr)) return false;
  for (int g = 0; g < L::kVectors; ++g) {
    _mm512_storeu_si512(q + g * L::kPerVector, vq[g]);
    _mm512_storeu_si512(r + g * L::kPerVector, vr[g]);
  }
  or_q = or_of_magnitudes<T>(vq);
  or_r = or_of_magnitudes<T>(vr);
  return true;
}

}  // namespace commpress::codec::homomorphic::detail

#endif
