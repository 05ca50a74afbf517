// AVX-512 residual-level block coding for f32 and f64 on the szp kernels' lane helpers: the
// middle of a homomorphic sum needs the residuals of a block, not its values, so these stop
// where the szp kernels would prefix-sum (decode) or start after Lorenzo (encode). They must
// produce exactly what szp::decode_residuals / szp::encode_residuals produce in lossy mode
// (tests/unit/homomorphic_test.cpp compares them on random residuals).
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <array>
#include <bit>

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
template <class T>
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
      for (int j = 0; j < hd.width; ++j) {
        const uint32_t plane = core::load_le<uint32_t>(p + 4 * j);
        const __m512i bit = L::set1(int64_t(uint64_t(1) << j));
        for (int g = 0; g < V; ++g) v[g] = L::or_where(v[g], plane >> (g * L::kPerVector), bit);
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

// Codes the sum of two coded blocks (zero / plain / outlier) whose sum needs no range check,
// in registers, as encode_residuals would; returns the body size.
template <class T>
inline size_t sum_coded_avx512(uint8_t ha, const std::byte* a, uint8_t hb, const std::byte* b,
                               uint8_t& header, std::byte* body) {
  using L = szp::detail::Lanes<T>;
  __m512i va[L::kVectors], vb[L::kVectors];
  decode_residual_vectors<T>(ha, a, va);
  decode_residual_vectors<T>(hb, b, vb);
  for (int g = 0; g < L::kVectors; ++g) va[g] = L::add(va[g], vb[g]);
  return encode_residual_vectors<T>(va, header, body);
}

// szp::quantize_block on a full block, then Lorenzo, in registers: q, r and the ORs of their
// magnitudes. False exactly when quantize_block fails (the outputs are then meaningless).
template <class T>
inline bool quantize_vectors(const T* x, const szp::LinearQuantizer<T>& qz, __m512i* q,
                             __m512i* r, typename szp::BlockTraits<T>::UInt& or_q,
                             typename szp::BlockTraits<T>::UInt& or_r) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  constexpr int V = L::kVectors;
  const auto inv = szp::detail::broadcast(qz.inv_step());
  const auto step = szp::detail::broadcast(qz.step());
  const auto accept = szp::detail::broadcast(qz.accept());
  uint32_t ok = L::kAllLanes;
  for (int g = 0; g < V; ++g)
    ok &= L::quantize(szp::detail::load(x + g * L::kPerVector), inv, step, accept, q[g]);
  if (ok != L::kAllLanes) return false;
  __m512i mq = _mm512_setzero_si512(), mr = _mm512_setzero_si512();
  for (int g = 0; g < V; ++g) {
    const __m512i below = g == 0 ? _mm512_setzero_si512() : q[g - 1];
    r[g] = L::sub(q[g], L::shift_in(q[g], below));
    mq = _mm512_or_si512(mq, L::abs(q[g]));
    mr = _mm512_or_si512(mr, L::abs(r[g]));
  }
  or_q = U(L::reduce_or(mq));
  or_r = U(L::reduce_or(mr));
  return true;
}

template <class T>
inline bool quantize_avx512(const T* x, const szp::LinearQuantizer<T>& qz, szp::IntOf<T>* q,
                            szp::IntOf<T>* r, typename szp::BlockTraits<T>::UInt& or_q,
                            typename szp::BlockTraits<T>::UInt& or_r) {
  using L = szp::detail::Lanes<T>;
  __m512i vq[L::kVectors], vr[L::kVectors];
  if (!quantize_vectors<T>(x, qz, vq, vr, or_q, or_r)) return false;
  for (int g = 0; g < L::kVectors; ++g) {
    _mm512_storeu_si512(q + g * L::kPerVector, vq[g]);
    _mm512_storeu_si512(r + g * L::kPerVector, vr[g]);
  }
  return true;
}

}  // namespace commpress::codec::homomorphic::detail

#endif
