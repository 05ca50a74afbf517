// Portable implementations of the block primitives, and dispatch to the fused AVX-512
// kernels for full speed. Both produce the same bytes (tests/unit/szp_block_test.cpp).
#include "codec/lossy/szp/szp_block.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "codec/lossy/szp/block_kernels_avx512.hpp"
#include "core/assert.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define COMMPRESS_SZP_AVX512 1
#else
#define COMMPRESS_SZP_AVX512 0
#endif

namespace commpress::codec::szp {

namespace {

template <class T>
using UIntOf = typename BlockTraits<T>::UInt;

using Fle = FixedLengthEncoder;

// Magnitudes, sign map and the chosen header/size for 32 residuals.
template <class T>
struct ResidualPlan {
  UIntOf<T> mag[kBlockValues];
  uint32_t signs = 0;
  uint8_t header = kZeroHeader;
  size_t size = 0;
  int width = 0;        // planes written
  int first_bytes = 0;  // outlier only
};

template <class T>
void plan(const IntOf<T>* r, Mode mode, ResidualPlan<T>& p) {
  using U = UIntOf<T>;
  U or_rest = 0;
  for (size_t i = 0; i < kBlockValues; ++i) p.mag[i] = Fle::magnitude(r[i]);
  for (size_t i = 1; i < kBlockValues; ++i) or_rest |= p.mag[i];
  int wp = Fle::width_of(U(or_rest | p.mag[0]));
  p.signs = Fle::sign_map(r);
  p.width = wp;
  p.first_bytes = 0;
  if (wp == 0) {
    p.header = kZeroHeader;
    p.size = 0;
    return;
  }
  p.header = plain_header(wp);
  p.size = planes_size(wp);
  int wo = Fle::width_of(or_rest);
  if (mode == Mode::lossy) {
    int k = Fle::byte_length(Fle::zigzag<U>(r[0]));
    size_t s = k + planes_size(wo);
    if (k <= kLossyOutlierMaxBytes && wo <= kLossyOutlierMaxWidth && s < p.size) {
      p.header = lossy_outlier_header(k, wo);
      p.size = s;
      p.width = wo;
      p.first_bytes = k;
    }
  } else {
    size_t s = sizeof(T) + planes_size(wo);
    if (s < p.size) {
      p.header = lossless_outlier_header(wo);
      p.size = s;
      p.width = wo;
      p.first_bytes = int(sizeof(T));
    }
  }
}

template <class T>
void write_body(const IntOf<T>* r, Mode mode, ResidualPlan<T>& p, std::byte* body) {
  using U = UIntOf<T>;
  if (p.size == 0) return;
  if (p.first_bytes > 0) {
    U first = mode == Mode::lossy ? Fle::zigzag<U>(r[0]) : U(FloatOrderMap<T>::flip(r[0]));
    Fle::store_bytes(body, uint64_t(first), p.first_bytes);
    body += p.first_bytes;
    if (p.width == 0) return;
    p.mag[0] = 0;  // the first value lives in its own bytes
    p.signs &= ~1u;
  }
  core::store_le<uint32_t>(body, p.signs);
  pack_planes(p.mag, p.width, body + 4);
}

template <class T>
size_t raw_size(size_t valid) {
  return valid * sizeof(T);
}

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
  plan<T>(r, mode, p);
  header = p.header;
  return p.size;
}

template <class T>
size_t encode_residuals(const IntOf<T>* r, Mode mode, uint8_t& header, std::byte* body) {
  ResidualPlan<T> p;
  plan<T>(r, mode, p);
  write_body<T>(r, mode, p, body);
  header = p.header;
  return p.size;
}

template <class T>
bool decode_residuals(uint8_t header, Mode mode, std::span<const std::byte> body, IntOf<T>* r) {
  using U = UIntOf<T>;
  BlockHeader hd = parse_header<T>(header, mode);
  if (hd.kind == BlockKind::raw || hd.kind == BlockKind::invalid) return false;
  if (body.size() < body_size<T>(hd, kBlockValues)) return false;
  const std::byte* p = body.data();
  IntOf<T> first = 0;
  if (hd.kind == BlockKind::outlier) {
    U v = U(Fle::load_bytes(p, hd.first_bytes));
    first = mode == Mode::lossy ? Fle::unzigzag(v) : FloatOrderMap<T>::flip(IntOf<T>(v));
    p += hd.first_bytes;
  }
  U mag[kBlockValues];
  uint32_t signs = 0;
  if (hd.width > 0) {
    signs = core::load_le<uint32_t>(p);
    unpack_planes(p + 4, hd.width, mag);
  } else {
    std::fill(mag, mag + kBlockValues, U(0));
  }
  for (size_t i = 0; i < kBlockValues; ++i)
    r[i] = IntOf<T>((signs >> i) & 1 ? U(0) - mag[i] : mag[i]);
  if (hd.kind == BlockKind::outlier) r[0] = first;
  return true;
}

// --- raw -----------------------------------------------------------------------------------

template <class T>
size_t write_raw_block(const T* x, size_t valid, std::byte* body) {
  std::memcpy(body, x, raw_size<T>(valid));
  return raw_size<T>(valid);
}

template <class T>
void read_raw_block(const std::byte* body, size_t valid, T* out) {
  std::memcpy(out, body, raw_size<T>(valid));
}

// --- lossy ---------------------------------------------------------------------------------

template <class T>
bool quantize_block(const T* x, size_t valid, const LinearQuantizer<T>& qz, IntOf<T>* q) {
  bool ok = true;
  for (size_t i = 0; i < valid; ++i) ok &= qz.quantize(x[i], q[i]);
  for (size_t i = valid; i < kBlockValues; ++i) q[i] = q[valid - 1];
  return ok;
}

template <class T>
size_t encode_lossy_block_portable(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                   uint8_t& header, std::byte* body) {
  IntOf<T> q[kBlockValues], r[kBlockValues];
  if (quantize_block(x, valid, qz, q)) {
    LorenzoPredictor::forward(q, r);
    ResidualPlan<T> p;
    plan<T>(r, Mode::lossy, p);
    if (p.size < raw_size<T>(valid)) {
      write_body<T>(r, Mode::lossy, p, body);
      header = p.header;
      return p.size;
    }
  }
  header = kRawHeader;
  return write_raw_block(x, valid, body);
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
  return encode_lossy_block_portable(x, valid, qz, header, body);
#endif
}

template <class T>
void decode_lossy_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                 const LinearQuantizer<T>& qz, T* out) {
  if (header == kRawHeader) return read_raw_block(body, valid, out);
  IntOf<T> r[kBlockValues], q[kBlockValues];
  bool ok = decode_residuals<T>(header, Mode::lossy, {body, max_body_size<T>(Mode::lossy)}, r);
  COMMPRESS_ASSERT(ok);  // callers validated the header
  LorenzoPredictor::inverse(r, q);
  for (size_t i = 0; i < valid; ++i) out[i] = qz.reconstruct(q[i]);
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
  decode_lossy_block_portable(header, body, valid, qz, out);
#endif
}

// --- lossless ------------------------------------------------------------------------------

template <class T>
size_t encode_lossless_block_portable(const T* x, size_t valid, uint8_t& header,
                                      std::byte* body) {
  IntOf<T> q[kBlockValues], r[kBlockValues];
  for (size_t i = 0; i < valid; ++i) q[i] = FloatOrderMap<T>::to_ordered(x[i]);
  for (size_t i = valid; i < kBlockValues; ++i) q[i] = q[valid - 1];
  LorenzoPredictor::forward(q, r);
  ResidualPlan<T> p;
  plan<T>(r, Mode::lossless, p);
  if (p.size < raw_size<T>(valid)) {
    write_body<T>(r, Mode::lossless, p, body);
    header = p.header;
    return p.size;
  }
  header = kRawHeader;
  return write_raw_block(x, valid, body);
}

template <class T>
size_t encode_lossless_block(const T* x, size_t valid, uint8_t& header, std::byte* body) {
#if COMMPRESS_SZP_AVX512
  if (valid == kBlockValues) return detail::encode_lossless_avx512(x, valid, header, body);
  T padded[kBlockValues];
  pad_copy(x, valid, padded);
  return detail::encode_lossless_avx512(padded, valid, header, body);
#else
  return encode_lossless_block_portable(x, valid, header, body);
#endif
}

template <class T>
void decode_lossless_block_portable(uint8_t header, const std::byte* body, size_t valid,
                                    T* out) {
  if (header == kRawHeader) return read_raw_block(body, valid, out);
  IntOf<T> r[kBlockValues], q[kBlockValues];
  bool ok =
      decode_residuals<T>(header, Mode::lossless, {body, max_body_size<T>(Mode::lossless)}, r);
  COMMPRESS_ASSERT(ok);
  LorenzoPredictor::inverse(r, q);
  for (size_t i = 0; i < valid; ++i) out[i] = FloatOrderMap<T>::from_ordered(q[i]);
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
