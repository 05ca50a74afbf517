// AVX-512 residual-level block coding for f32 and f64 on the szp kernels' lane helpers: the
// middle of a homomorphic sum needs the residuals of a block, not its values, so these stop
// where the szp kernels would prefix-sum (decode) or start after Lorenzo (encode). They must
// produce exactly what szp::decode_residuals / szp::encode_residuals produce in lossy mode
// (tests/unit/homomorphic_test.cpp compares them on random residuals).
#pragma once

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include <bit>

#include "codec/lossy/szp/block_kernels_avx512.hpp"
#include "codec/lossy/szp/szp_block.hpp"

namespace commpress::codec::homomorphic::detail {

// The 32 residuals of a zero / plain / outlier block.
template <class T>
inline void decode_residuals_avx512(uint8_t header, const std::byte* body, szp::IntOf<T>* r) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  using Fle = szp::FixedLengthEncoder;
  constexpr int V = L::kVectors;
  __m512i v[V];
  for (int g = 0; g < V; ++g) v[g] = _mm512_setzero_si512();
  if (header != szp::kZeroHeader) {
    const szp::BlockHeader hd = szp::parse_header<T>(header, szp::Mode::lossy);
    const std::byte* p = body;
    int64_t first = 0;
    if (hd.kind == szp::BlockKind::outlier) {
      first = Fle::unzigzag(U(Fle::load_bytes(p, hd.first_bytes)));
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
  for (int g = 0; g < V; ++g) _mm512_storeu_si512(r + g * L::kPerVector, v[g]);
}

// Zero, else the smaller of plain and outlier (plain on a tie; outlier only with a first
// value of at most 4 bytes and a width of at most 31). Returns the body size.
template <class T>
inline size_t encode_residuals_avx512(const szp::IntOf<T>* r, uint8_t& header, std::byte* body) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  using Fle = szp::FixedLengthEncoder;
  constexpr int V = L::kVectors;
  __m512i m[V];
  uint32_t signs = 0;
  for (int g = 0; g < V; ++g) {
    const __m512i v = _mm512_loadu_si512(r + g * L::kPerVector);
    m[g] = L::abs(v);  // the most negative residual keeps its magnitude 2^(bits-1) unsigned
    signs |= L::negatives(v) << (g * L::kPerVector);
  }
  const __m512i m0_full = m[0];
  m[0] = L::clear_lane0(m[0]);
  __m512i rest = m[0];
  for (int g = 1; g < V; ++g) rest = _mm512_or_si512(rest, m[g]);
  const U or_rest = U(L::reduce_or(rest));
  const int wp = int(std::bit_width(U(or_rest | Fle::magnitude(r[0]))));
  if (wp == 0) {
    header = szp::kZeroHeader;
    return 0;
  }
  const int wo = int(std::bit_width(or_rest));
  const U zz = Fle::zigzag<U>(r[0]);
  const int k = Fle::byte_length(zz);
  const size_t plain_size = szp::planes_size(wp), outlier_size = k + szp::planes_size(wo);
  if (k <= szp::kLossyOutlierMaxBytes && wo <= szp::kLossyOutlierMaxWidth &&
      outlier_size < plain_size) {
    header = szp::lossy_outlier_header(k, wo);
    Fle::store_bytes(body, uint64_t(zz), k);
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

// szp::quantize_block on a full block, then Lorenzo: q, r and the ORs of their magnitudes.
// False exactly when quantize_block fails (q, r and the ORs are then meaningless).
template <class T>
inline bool quantize_avx512(const T* x, const szp::LinearQuantizer<T>& qz, szp::IntOf<T>* q,
                            szp::IntOf<T>* r, typename szp::BlockTraits<T>::UInt& or_q,
                            typename szp::BlockTraits<T>::UInt& or_r) {
  using L = szp::detail::Lanes<T>;
  using U = typename szp::BlockTraits<T>::UInt;
  constexpr int V = L::kVectors;
  const auto inv = szp::detail::broadcast(qz.inv_step());
  const auto step = szp::detail::broadcast(qz.step());
  const auto accept = szp::detail::broadcast(qz.accept());
  uint32_t ok = L::kAllLanes;
  __m512i vq[V];
  for (int g = 0; g < V; ++g)
    ok &= L::quantize(szp::detail::load(x + g * L::kPerVector), inv, step, accept, vq[g]);
  if (ok != L::kAllLanes) return false;
  __m512i mq = _mm512_setzero_si512(), mr = _mm512_setzero_si512();
  for (int g = 0; g < V; ++g) {
    const __m512i below = g == 0 ? _mm512_setzero_si512() : vq[g - 1];
    const __m512i vr = L::sub(vq[g], L::shift_in(vq[g], below));
    mq = _mm512_or_si512(mq, L::abs(vq[g]));
    mr = _mm512_or_si512(mr, L::abs(vr));
    _mm512_storeu_si512(q + g * L::kPerVector, vq[g]);
    _mm512_storeu_si512(r + g * L::kPerVector, vr);
  }
  or_q = U(L::reduce_or(mq));
  or_r = U(L::reduce_or(mr));
  return true;
}

}  // namespace commpress::codec::homomorphic::detail

#endif
