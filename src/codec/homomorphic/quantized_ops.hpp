// The integer-level steps of a homomorphic sum on one block: residuals in and out of the szp
// body format, quantization of local values, range checks. Each uses the AVX-512 kernels
// when built with them, szp's AVX2 block kernels (f32) in an AVX2 build without them, and
// the portable szp primitives otherwise; all give the same integers and the same bytes.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

#include "codec/homomorphic/residual_kernels_avx512.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "core/assert.hpp"
#include "core/host_device.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__) && !COMMPRESS_DEVICE_PASS
#define COMMPRESS_HOMOMORPHIC_AVX512 1
#else
#define COMMPRESS_HOMOMORPHIC_AVX512 0
#endif
// Without AVX-512, f32 blocks go through szp's AVX2 block kernels where there are some.
#if !COMMPRESS_HOMOMORPHIC_AVX512 && defined(__AVX2__) && !COMMPRESS_DEVICE_PASS
#include "codec/lossy/szp/block_kernels_avx2.hpp"
#define COMMPRESS_HOMOMORPHIC_AVX2 1
#else
#define COMMPRESS_HOMOMORPHIC_AVX2 0
#endif

namespace commpress::codec::homomorphic {

using szp::kBlockValues;
template <class T>
using Int = szp::IntOf<T>;
template <class T>
using UInt = typename szp::BlockTraits<T>::UInt;

template <class T>
COMMPRESS_HD constexpr size_t raw_body_size(size_t valid) {
  return valid * sizeof(T);
}

// Residuals of a zero / plain / outlier block whose (validated) body holds `size` bytes.
template <class T>
COMMPRESS_HD void decode_r(uint8_t header, const std::byte* body, size_t size, Int<T>* r) {
#if COMMPRESS_HOMOMORPHIC_AVX512
  (void)size;
  detail::decode_residuals_avx512<T>(header, body, r);
#else
#if COMMPRESS_HOMOMORPHIC_AVX2
  if constexpr (std::is_same_v<T, float>) {
    __m256i v[4];
    szp::detail::decode_residual_vectors_avx2<szp::Mode::lossy>(header, body, v);
    for (int g = 0; g < 4; ++g) _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 8 * g), v[g]);
    return;
  }
#endif
  // Callers pass validated headers with their bodies, so this cannot fail.
  szp::portable::decode_residuals<T>(header, szp::Mode::lossy, body, size, r);
#endif
}

// szp::encode_residuals in lossy mode (zero / plain / outlier, never raw).
template <class T>
COMMPRESS_HD size_t encode_r(const Int<T>* r, uint8_t& header, std::byte* body) {
#if COMMPRESS_HOMOMORPHIC_AVX512
  return detail::encode_residuals_avx512<T>(r, header, body);
#else
#if COMMPRESS_HOMOMORPHIC_AVX2
  if constexpr (std::is_same_v<T, float>) {
    __m256i v[4];
    for (int g = 0; g < 4; ++g) v[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 8 * g));
    return szp::detail::encode_residual_vectors_avx2<szp::Mode::lossy>(v, nullptr, kBlockValues,
                                                                      header, body);
  }
#endif
  szp::portable::ResidualPlan<T> p;
  szp::portable::plan<T>(r, szp::Mode::lossy, p);
  szp::portable::write_body<T>(r, szp::Mode::lossy, p, body);
  header = p.header;
  return p.size;
#endif
}

// szp::quantize_block then Lorenzo: q and r for x[0..valid) (padding repeats q[valid-1]),
// and the ORs of their magnitudes. False when some value cannot be quantized within the
// bound, the block then being stored raw.
template <class T>
COMMPRESS_HD bool quantize_qr(const T* x, size_t valid, const szp::LinearQuantizer<T>& qz, Int<T>* q,
                 Int<T>* r, UInt<T>& or_q, UInt<T>& or_r) {
#if COMMPRESS_HOMOMORPHIC_AVX512
  if (valid == kBlockValues) return detail::quantize_avx512<T>(x, qz, q, r, or_q, or_r);
#elif COMMPRESS_HOMOMORPHIC_AVX2
  if constexpr (std::is_same_v<T, float>)
    if (valid == kBlockValues) return szp::detail::quantize_lorenzo_avx2(x, qz, q, r, or_q, or_r);
#endif
  if (!szp::portable::quantize_block(x, valid, qz, q)) return false;
  szp::LorenzoPredictor::forward(q, r);
  or_q = or_r = 0;
  for (size_t i = 0; i < kBlockValues; ++i) {
    or_q |= szp::FixedLengthEncoder::magnitude(q[i]);
    or_r |= szp::FixedLengthEncoder::magnitude(r[i]);
  }
  return true;
}

// An exponent e with |q[i]| < 2^e in every lane of a block with this header, read off the
// header alone: the first value's field plus 31 residuals below 2^width (plain: 32 of them).
template <class T>
COMMPRESS_HD constexpr int q_bits_of(uint8_t h) {
  szp::BlockHeader hd = szp::parse_header<T>(h, szp::Mode::lossy);
  int e = 127;  // raw and invalid headers: no bound
  if (hd.kind == szp::BlockKind::zero) e = 0;
  if (hd.kind == szp::BlockKind::plain) e = hd.width + 5;
  if (hd.kind == szp::BlockKind::outlier) {
    const int first = 8 * int(hd.first_bytes) - 1, rest = int(hd.width) + 5;
    e = (first > rest ? first : rest) + 1;
  }
  return e;
}
template <class T>
constexpr std::array<int8_t, 256> make_q_bits_table() {
  std::array<int8_t, 256> t{};
  for (int h = 0; h < 256; ++h) t[h] = int8_t(q_bits_of<T>(uint8_t(h)));
  return t;
}
// The CPU reads the table; a device evaluates q_bits_of (a host table is not device memory).
template <class T>
inline constexpr std::array<int8_t, 256> kQBits = make_q_bits_table<T>();

// Operands whose |q| stay below 2^(bits-3) can be summed without any check: the sum stays
// below the quantizer's limit 2^(bits-2).
template <class T>
inline constexpr int kSafeQBits = szp::BlockTraits<T>::kBits - 3;

// Residual width below which even the plain form of a full block is smaller than its raw
// values, so the encoder surely codes it.
template <class T>
inline constexpr int kPlainBelowRawBits = int(8 * sizeof(T)) - 2;
static_assert(szp::planes_size(kPlainBelowRawBits<float>) < raw_body_size<float>(kBlockValues) &&
              szp::planes_size(kPlainBelowRawBits<float> + 1) >= raw_body_size<float>(kBlockValues));
static_assert(szp::planes_size(kPlainBelowRawBits<double>) < raw_body_size<double>(kBlockValues) &&
              szp::planes_size(kPlainBelowRawBits<double> + 1) >= raw_body_size<double>(kBlockValues));

// True when every prefix sum of ra, rb and rs over the valid lanes (that is qa, qb and their
// sum) stays inside the quantizer's range; then the wrapping sum is the exact sum.
template <class T>
COMMPRESS_HD bool sums_in_range(const Int<T>* ra, const Int<T>* rb, const Int<T>* rs, size_t valid) {
  using U = UInt<T>;
  using Fle = szp::FixedLengthEncoder;
  // The limit is a power of two: every magnitude is below it iff their OR is.
  constexpr U lim = U(szp::LinearQuantizer<T>::kLimit);
  static_assert((lim & (lim - 1)) == 0);
  Int<T> qa[kBlockValues], qb[kBlockValues], qs[kBlockValues];
  szp::LorenzoPredictor::inverse(ra, qa);
  szp::LorenzoPredictor::inverse(rb, qb);
  szp::LorenzoPredictor::inverse(rs, qs);
  U mags = 0;
  for (size_t i = 0; i < valid; ++i)
    mags |= Fle::magnitude(qa[i]) | Fle::magnitude(qb[i]) | Fle::magnitude(qs[i]);
  return mags < lim;
}

template <class T>
COMMPRESS_HD void reconstruct_q(const Int<T>* q, size_t valid, const szp::LinearQuantizer<T>& qz, T* out) {
  for (size_t i = 0; i < valid; ++i) out[i] = qz.reconstruct(q[i]);
}

}  // namespace commpress::codec::homomorphic
