// The block primitives: the portable ones are portable_block.hpp's (the code CUDA kernels run
// too), dispatch goes to the fused AVX-512 kernels for full speed, or on CPUs without AVX-512
// to the AVX2 ones (f32). All produce the same bytes (tests/unit/szp_block_test.cpp).
#include "codec/lossy/szp/szp_block.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "codec/lossy/szp/block_kernels_avx2.hpp"
#include "codec/lossy/szp/block_kernels_avx512.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "core/assert.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define COMMPRESS_SZP_AVX512 1
#else
#define COMMPRESS_SZP_AVX512 0
#endif
#if !defined(COMMPRESS_SZP_AVX2)
#define COMMPRESS_SZP_AVX2 0
#endif

namespace commpress::codec::szp {

namespace {

using portable::ResidualPlan;

template <class T>
[[maybe_unused]] void pad_copy(const T* x, size_t valid, T* dst) {
  std::memcpy(dst, x, valid * sizeof(T));
  for (size_t i = valid; i < kBlockValues; ++i) dst[i] = x[valid - 1];
}

}  // namespace

// --- residual level ------------------------------------------------------------------------

template <class T>
size_t plan_residuals(const IntOf<T>* r, Mode mode, uint8_t& header) {
  ResidualPlan<T> p;
  portable::plan<T>(r, mode, p);
  header = p.header;
  return p.size;
}

template <class T>
size_t encode_residuals(const IntOf<T>* r, Mode mode, uint8_t& header, std::byte* body) {
  ResidualPlan<T> p;
  portable::plan<T>(r, mode, p);
  portable::write_body<T>(r, mode, p, body);
  header = p.header;
  return p.size;
}

template <class T>
bool decode_residuals(uint8_t header, Mode mode, std::span<const std::byte> body, IntOf<T>* r) {
  return portable::decode_residuals<T>(header, mode, body.data(), body.size(), r);
}

// --- raw -----------------------------------------------------------------------------------

template <class T>
size_t write_raw_block(const T* x, size_t valid, std::byte* body) {
  return portable::write_raw_block(x, valid, body);
}

template <class T>
void read_raw_block(const std::byte* body, size_t valid, T* out) {
  portable::read_raw_block(body, valid, out);
}

// --- lossy ---------------------------------------------------------------------------------

template <class T>
bool quantize_block(const T* x, size_t valid, const LinearQuantizer<T>& qz, IntOf<T>* q) {
#if COMMPRESS_SZP_AVX2
  if constexpr (std::is_same_v<T, float>)
    if (valid == kBlockValues) return detail::quantize_avx2(x, qz, q);
#endif
  return portable::quantize_block(x, valid, qz, q);
}

template <class T>
size_t encode_lossy_block_portable(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                   uint8_t& header, std::byte* body) {
  return portable::encode_lossy_block(x, valid, qz, header, body);
}

template <class T>
size_t encode_lossy_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                          uint8_t& header, std::byte* body) {
#if COMMPRESS_SZP_AVX512
  if (valid == kBlockValues) return detail::encode_lossy_avx512(x, valid, qz, header, body);
  T padded[kBlockValues];
  pad_copy(x, valid, padded);
  return detail::encode_lossy_avx512(padded, valid, qz, header, body);
#else
#if COMMPRESS_SZP_AVX2
  if constexpr (std::is_same_v<T, float>) {
    if (valid == kBlockValues) return detail::encode_lossy_avx2(x, valid, qz, header, body);
    T padded[kBlockValues];
    pad_copy(x, valid, padded);
    return detail::encode_lossy_avx2(padded, valid, qz, header, body);
  }
#endif
  return encode_lossy_block_portable(x, valid, qz, header, body);
#endif
}

template <class T>
void decode_lossy_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                 const LinearQuantizer<T>& qz, T* out) {
  bool ok = portable::decode_lossy_block(header, body, valid, qz, out);
  COMMPRESS_ASSERT(ok);  // callers validated the header
}

template <class T>
void decode_lossy_block(uint8_t header, const std::byte* body, size_t valid,
                        const LinearQuantizer<T>& qz, T* out) {
#if COMMPRESS_SZP_AVX512
  if (header == kRawHeader) return read_raw_block(body, valid, out);
  if (valid == kBlockValues) return detail::decode_lossy_avx512(header, body, qz, out);
  T full[kBlockValues];
  detail::decode_lossy_avx512(header, body, qz, full);
  std::memcpy(out, full, valid * sizeof(T));
#else
#if COMMPRESS_SZP_AVX2
  if constexpr (std::is_same_v<T, float>) {
    if (header == kRawHeader) return read_raw_block(body, valid, out);
    if (valid == kBlockValues) return detail::decode_lossy_avx2(header, body, qz, out);
    T full[kBlockValues];
    detail::decode_lossy_avx2(header, body, qz, full);
    std::memcpy(out, full, valid * sizeof(T));
    return;
  }
#endif
  decode_lossy_block_portable(header, body, valid, qz, out);
#endif
}

// --- lossless ------------------------------------------------------------------------------

template <class T>
size_t encode_lossless_block_portable(const T* x, size_t valid, uint8_t& header,
                                      std::byte* body) {
  return portable::encode_lossless_block(x, valid, header, body);
}

template <class T>
size_t encode_lossless_block(const T* x, size_t valid, uint8_t& header, std::byte* body) {
#if COMMPRESS_SZP_AVX512
  if (valid == kBlockValues) return detail::encode_lossless_avx512(x, valid, header, body);
  T padded[kBlockValues];
  pad_copy(x, valid, padded);
  return detail::encode_lossless_avx512(padded, valid, header, body);
#else
#if COMMPRESS_SZP_AVX2
  if constexpr (std::is_same_v<T, float>) {
    if (valid == kBlockValues) return detail::encode_lossless_avx2(x, valid, header, body);
    T padded[kBlockValues];
    pad_copy(x, valid, padded);
    return detail::encode_lossless_avx2(padded, valid, header, body);
  }
#endif
  return encode_lossless_block_portable(x, valid, header, body);
#endif
}

template <class T>
void decode_lossless_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                    T* out) {
  bool ok = portable::decode_lossless_block(header, body, valid, out);
  COMMPRESS_ASSERT(ok);  // callers validated the header
}

template <class T>
void decode_lossless_block(uint8_t header, const std::byte* body, size_t valid, T* out) {
#if COMMPRESS_SZP_AVX512
  if (header == kRawHeader) return read_raw_block(body, valid, out);
  if (valid == kBlockValues) return detail::decode_lossless_avx512(header, body, out);
  T full[kBlockValues];
  detail::decode_lossless_avx512(header, body, full);
  std::memcpy(out, full, valid * sizeof(T));
#else
#if COMMPRESS_SZP_AVX2
  if constexpr (std::is_same_v<T, float>) {
    if (header == kRawHeader) return read_raw_block(body, valid, out);
    if (valid == kBlockValues) return detail::decode_lossless_avx2(header, body, out);
    T full[kBlockValues];
    detail::decode_lossless_avx2(header, body, full);
    std::memcpy(out, full, valid * sizeof(T));
    return;
  }
#endif
  decode_lossless_block_portable(header, body, valid, out);
#endif
}

// --- layout --------------------------------------------------------------------------------

Result<PayloadView> split_payload(std::span<const std::byte> payload, size_t n) {
  size_t nb = block_count(n);
  if (payload.size() < nb)
    return Status{ErrorCode::truncated, "szp payload of " + std::to_string(payload.size()) +
                                            " bytes cannot hold the " + std::to_string(nb) +
                                            " block headers of " + std::to_string(n) + " values"};
  PayloadView v;
  v.headers = {reinterpret_cast<const uint8_t*>(payload.data()), nb};
  v.bodies = payload.subspan(nb);
  return v;
}

template <class T>
Status block_offsets(std::span<const std::byte> payload, size_t n, Mode mode,
                     std::vector<uint64_t>& offsets) {
  auto view = split_payload(payload, n);
  if (!view.ok()) return view.status();
  size_t nb = view->headers.size();
  offsets.resize(nb + 1);
  uint64_t pos = 0;
  for (size_t b = 0; b < nb; ++b) {
    offsets[b] = pos;
    size_t s = body_size<T>(view->headers[b], valid_in_block(n, b), mode);
    if (s == SIZE_MAX)
      return {ErrorCode::corrupt_frame, "szp block " + std::to_string(b) +
                                            " has invalid header byte " +
                                            std::to_string(view->headers[b])};
    pos += s;
  }
  offsets[nb] = pos;
  if (pos != view->bodies.size())
    return {ErrorCode::corrupt_frame, "szp block bodies need " + std::to_string(pos) +
                                          " bytes but the payload holds " +
                                          std::to_string(view->bodies.size())};
  return {};
}

#define COMMPRESS_SZP_INSTANTIATE(T)                                                          \
  template size_t plan_residuals<T>(const IntOf<T>*, Mode, uint8_t&);                         \
  template size_t encode_residuals<T>(const IntOf<T>*, Mode, uint8_t&, std::byte*);           \
  template bool decode_residuals<T>(uint8_t, Mode, std::span<const std::byte>, IntOf<T>*);    \
  template bool quantize_block<T>(const T*, size_t, const LinearQuantizer<T>&, IntOf<T>*);    \
  template size_t encode_lossy_block<T>(const T*, size_t, const LinearQuantizer<T>&,          \
                                        uint8_t&, std::byte*);                                \
  template size_t encode_lossy_block_portable<T>(const T*, size_t, const LinearQuantizer<T>&, \
                                                 uint8_t&, std::byte*);                       \
  template void decode_lossy_block<T>(uint8_t, const std::byte*, size_t,                      \
                                      const LinearQuantizer<T>&, T*);                         \
  template void decode_lossy_block_portable<T>(uint8_t, const std::byte*, size_t,             \
                                               const LinearQuantizer<T>&, T*);                \
  template size_t encode_lossless_block<T>(const T*, size_t, uint8_t&, std::byte*);           \
  template size_t encode_lossless_block_portable<T>(const T*, size_t, uint8_t&, std::byte*);  \
  template void decode_lossless_block<T>(uint8_t, const std::byte*, size_t, T*);              \
  template void decode_lossless_block_portable<T>(uint8_t, const std::byte*, size_t, T*);     \
  template size_t write_raw_block<T>(const T*, size_t, std::byte*);                           \
  template void read_raw_block<T>(const std::byte*, size_t, T*);                              \
  template Status block_offsets<T>(std::span<const std::byte>, size_t, Mode,                  \
                                   std::vector<uint64_t>&);

COMMPRESS_SZP_INSTANTIATE(float)
COMMPRESS_SZP_INSTANTIATE(double)

}  // namespace commpress::codec::szp
