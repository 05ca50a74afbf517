// The one definition of an szp block (docs/format/szp.md) in portable C++ that compiles for
// the CPU and, under nvcc, for a CUDA device (COMMPRESS_HD). The CPU codec's portable path is
// these functions (szp_block.cpp wraps them), the AVX-512 kernels are tested byte for byte
// against them, and the CUDA kernels (src/cuda/) call them per block: a CPU test of the
// codec therefore tests the code a GPU runs. Conventions are szp_block.hpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/fixed_length_encoder.hpp"
#include "codec/lossy/szp/float_order_map.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "codec/lossy/szp/lorenzo_predictor.hpp"
#include "core/byte_io.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::szp {

template <class T>
using IntOf = typename BlockTraits<T>::Int;

namespace portable {

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
COMMPRESS_HD void plan(const IntOf<T>* r, Mode mode, ResidualPlan<T>& p) {
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
COMMPRESS_HD void write_body(const IntOf<T>* r, Mode mode, ResidualPlan<T>& p, std::byte* body) {
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
COMMPRESS_HD size_t write_raw_block(const T* x, size_t valid, std::byte* body) {
  memcpy(body, x, valid * sizeof(T));
  return valid * sizeof(T);
}

template <class T>
COMMPRESS_HD void read_raw_block(const std::byte* body, size_t valid, T* out) {
  memcpy(out, body, valid * sizeof(T));
}

// The 32 residuals of a zero / plain / outlier block whose body holds body_len bytes; false
// for raw or invalid headers or a body shorter than the header says.
template <class T>
COMMPRESS_HD bool decode_residuals(uint8_t header, Mode mode, const std::byte* body,
                                   size_t body_len, IntOf<T>* r) {
  using U = UIntOf<T>;
  BlockHeader hd = parse_header<T>(header, mode);
  if (hd.kind == BlockKind::raw || hd.kind == BlockKind::invalid) return false;
  if (body_len < body_size<T>(hd, kBlockValues)) return false;
  const std::byte* p = body;
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
    for (size_t i = 0; i < kBlockValues; ++i) mag[i] = 0;
  }
  for (size_t i = 0; i < kBlockValues; ++i)
    r[i] = IntOf<T>((signs >> i) & 1 ? U(0) - mag[i] : mag[i]);
  if (hd.kind == BlockKind::outlier) r[0] = first;
  return true;
}

template <class T>
COMMPRESS_HD bool quantize_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                 IntOf<T>* q) {
  bool ok = true;
  for (size_t i = 0; i < valid; ++i) ok &= qz.quantize(x[i], q[i]);
  for (size_t i = valid; i < kBlockValues; ++i) q[i] = q[valid - 1];
  return ok;
}

// The integers q of a block (quantized values or order-mapped bits; `coded` false when they
// cannot stand for x) predicted and planned: the header and body size of the block, written
// to body unless body is null (a planning pass). Raw when not coded or no coded body is
// smaller than the values.
template <class T>
COMMPRESS_HD size_t code_or_raw(const T* x, size_t valid, bool coded, const IntOf<T>* q,
                                Mode mode, uint8_t& header, std::byte* body) {
  if (coded) {
    IntOf<T> r[kBlockValues];
    LorenzoPredictor::forward(q, r);
    ResidualPlan<T> p;
    portable::plan<T>(r, mode, p);
    if (p.size < valid * sizeof(T)) {
      if (body) portable::write_body<T>(r, mode, p, body);
      header = p.header;
      return p.size;
    }
  }
  header = kRawHeader;
  if (body) portable::write_raw_block(x, valid, body);
  return valid * sizeof(T);
}

// Quantize, predict, encode; raw when quantization fails or no coded body is smaller.
template <class T>
COMMPRESS_HD size_t encode_lossy_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                       uint8_t& header, std::byte* body) {
  IntOf<T> q[kBlockValues];
  const bool coded = portable::quantize_block(x, valid, qz, q);
  return portable::code_or_raw(x, valid, coded, q, Mode::lossy, header, body);
}

// The size and header encode_lossy_block would write, without writing: the first pass of a
// parallel encoder that needs every block's size before it knows where bodies go.
template <class T>
COMMPRESS_HD size_t plan_lossy_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                                     uint8_t& header) {
  IntOf<T> q[kBlockValues];
  const bool coded = portable::quantize_block(x, valid, qz, q);
  return portable::code_or_raw<T>(x, valid, coded, q, Mode::lossy, header, nullptr);
}

template <class T>
COMMPRESS_HD size_t encode_lossless_block(const T* x, size_t valid, uint8_t& header,
                                          std::byte* body) {
  IntOf<T> q[kBlockValues];
  for (size_t i = 0; i < valid; ++i) q[i] = FloatOrderMap<T>::to_ordered(x[i]);
  for (size_t i = valid; i < kBlockValues; ++i) q[i] = q[valid - 1];
  return portable::code_or_raw(x, valid, true, q, Mode::lossless, header, body);
}

// The integers of a zero / plain / outlier block; false for a header invalid in this mode.
template <class T>
COMMPRESS_HD bool decode_integers(uint8_t header, Mode mode, const std::byte* body,
                                  IntOf<T>* q) {
  IntOf<T> r[kBlockValues];
  // Both sizes as constants: the table behind max_body_size is host memory.
  constexpr size_t kLossy = max_body_size<T>(Mode::lossy);
  constexpr size_t kLossless = max_body_size<T>(Mode::lossless);
  const size_t max_body = mode == Mode::lossy ? kLossy : kLossless;
  if (!portable::decode_residuals<T>(header, mode, body, max_body, r)) return false;
  LorenzoPredictor::inverse(r, q);
  return true;
}

// False for a header that is not valid in lossy mode (nothing written then).
template <class T>
COMMPRESS_HD bool decode_lossy_block(uint8_t header, const std::byte* body, size_t valid,
                                     const LinearQuantizer<T>& qz, T* out) {
  IntOf<T> q[kBlockValues];
  if (header == kRawHeader) portable::read_raw_block(body, valid, out);
  else if (!portable::decode_integers<T>(header, Mode::lossy, body, q)) return false;
  else for (size_t i = 0; i < valid; ++i) out[i] = qz.reconstruct(q[i]);
  return true;
}

template <class T>
COMMPRESS_HD bool decode_lossless_block(uint8_t header, const std::byte* body, size_t valid,
                                        T* out) {
  IntOf<T> q[kBlockValues];
  if (header == kRawHeader) portable::read_raw_block(body, valid, out);
  else if (!portable::decode_integers<T>(header, Mode::lossless, body, q)) return false;
  else for (size_t i = 0; i < valid; ++i) out[i] = FloatOrderMap<T>::from_ordered(q[i]);
  return true;
}

}  // namespace portable
}  // namespace commpress::codec::szp
