// The per-block arithmetic of homomorphic sums. An operand block is either a block of a
// received szp frame (FrameBlock) or 32 local values quantized on the fly (LocalBlock); both
// answer the same questions, so one combine_block serves combine() and combine_raw().
//
// Lorenzo prediction is linear, so the residuals of a sum are the sums of the residuals: two
// blocks are added without leaving the integer domain, and the result decodes to exactly
// T(qa + qb) * step. Where that arithmetic cannot be kept (a raw operand, or a sum outside
// the quantizer's range) the block carries the floating-point sum of both operands' decoded
// values, stored raw.
#pragma once

#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>

#include "codec/homomorphic/payload_scan.hpp"
#include "codec/homomorphic/quantized_ops.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::homomorphic {

// One block of a validated szp payload: header byte and its body bytes.
template <class T>
struct FrameBlock {
  uint8_t header;
  const std::byte* body;
  size_t size;

  COMMPRESS_HD bool zero() const { return header == szp::kZeroHeader; }
  COMMPRESS_HD bool raw() const { return header == szp::kRawHeader; }
  COMMPRESS_HD int q_bits() const {
#if COMMPRESS_DEVICE_PASS
    return q_bits_of<T>(header);
#else
    return kQBits<T>[header];
#endif
  }

  // The block unchanged: adding a zero block is the identity, bit for bit.
  COMMPRESS_HD size_t emit(size_t, uint8_t& h, std::byte* out) const {
    h = header;
    if (size) memcpy(out, body, size);
    return size;
  }

  COMMPRESS_HD const Int<T>* residuals(Int<T>* scratch) const {
    decode_r<T>(header, body, size, scratch);
    return scratch;
  }

  COMMPRESS_HD void values(size_t valid, const szp::LinearQuantizer<T>& qz, T* out) const {
#if COMMPRESS_DEVICE_PASS
    szp::portable::decode_lossy_block(header, body, valid, qz, out);
#else
    szp::decode_lossy_block(header, body, valid, qz, out);
#endif
  }
};

// Walks the blocks of a validated payload in order from a chunk's first block.
template <class T>
class FrameCursor {
 public:
  // block: the first block's index; offset: its body's offset in the bodies area.
  FrameCursor(const uint8_t* headers, const std::byte* bodies, size_t block, uint64_t offset)
      : header_(headers + block), body_(bodies + offset) {}

  FrameBlock<T> next(size_t valid) {
    const uint8_t h = *header_++;
    const size_t size = block_body_size<T>(h, valid);
    FrameBlock<T> blk{h, body_, size};
    body_ += size;
    return blk;
  }

 private:
  const uint8_t* header_;
  const std::byte* body_;
};

// 32 local values as the szp encoder sees them: quantized with the frame's bound, and raw
// exactly when the encoder would store them raw (quantization failed, or no coded body would
// be smaller than the values). So a LocalBlock behaves as the block at the same position of
// szp-compress(local), without that block ever being written.
template <class T>
class LocalBlock {
 public:
  COMMPRESS_HD LocalBlock(const T* x, size_t valid, const szp::LinearQuantizer<T>& qz) : x_(x) {
    UInt<T> or_q, or_r;
    if (!quantize_qr<T>(x, valid, qz, q_, r_, or_q, or_r)) {
      raw_ = true;
      return;
    }
    zero_ = or_q == 0;
    q_bits_ = core::bit_width(or_q);
    // A plain body of planes_size(width of all residuals) is always an option, so only
    // blocks near that size need the encoder's exact plan.
    if (szp::planes_size(core::bit_width(or_r)) >= raw_body_size<T>(valid)) {
      szp::portable::ResidualPlan<T> p;
      szp::portable::plan<T>(r_, szp::Mode::lossy, p);
      raw_ = p.size >= raw_body_size<T>(valid);
    }
  }

  COMMPRESS_HD bool zero() const { return zero_; }
  COMMPRESS_HD bool raw() const { return raw_; }
  COMMPRESS_HD int q_bits() const { return q_bits_; }

  COMMPRESS_HD size_t emit(size_t valid, uint8_t& h, std::byte* out) const {
    if (raw_) {
      h = szp::kRawHeader;
      return szp::portable::write_raw_block(x_, valid, out);
    }
    return encode_r<T>(r_, h, out);
  }

  COMMPRESS_HD const Int<T>* residuals(Int<T>*) const { return r_; }

  COMMPRESS_HD void values(size_t valid, const szp::LinearQuantizer<T>& qz, T* out) const {
    if (raw_) memcpy(out, x_, raw_body_size<T>(valid));
    else reconstruct_q<T>(q_, valid, qz, out);
  }

 private:
  const T* x_;
  Int<T> q_[kBlockValues];
  Int<T> r_[kBlockValues];
  bool zero_ = false;
  bool raw_ = false;
  int q_bits_ = 0;
};

// Writes the block holding a + b; returns its body size (at most max_body_size<T>(lossy)).
template <class T, class A, class B>
COMMPRESS_HD size_t combine_block(const A& a, const B& b, size_t valid, const szp::LinearQuantizer<T>& qz,
                     uint8_t& header, std::byte* body) {
  using U = UInt<T>;
  if (a.zero()) return b.emit(valid, header, body);
  if (b.zero()) return a.emit(valid, header, body);
  T sum[kBlockValues];
  if (!a.raw() && !b.raw()) {
    Int<T> sa[kBlockValues], sb[kBlockValues], rs[kBlockValues];
    const Int<T>* ra = a.residuals(sa);
    const Int<T>* rb = b.residuals(sb);
    for (size_t i = 0; i < kBlockValues; ++i) rs[i] = Int<T>(U(ra[i]) + U(rb[i]));
    // Padding lanes repeat the last valid value, as the encoder's do.
    for (size_t i = valid; i < kBlockValues; ++i) rs[i] = 0;
    if ((a.q_bits() <= kSafeQBits<T> && b.q_bits() <= kSafeQBits<T>) ||
        sums_in_range<T>(ra, rb, rs, valid)) {
      const size_t size = encode_r<T>(rs, header, body);
      if (size < raw_body_size<T>(valid)) return size;
      // Where the encoder would store values raw, store the ones the coded sum decodes to.
      Int<T> qs[kBlockValues];
      szp::LorenzoPredictor::inverse(rs, qs);
      reconstruct_q<T>(qs, valid, qz, sum);
      header = szp::kRawHeader;
      return szp::portable::write_raw_block(sum, valid, body);
    }
  }
  T other[kBlockValues];
  a.values(valid, qz, sum);
  b.values(valid, qz, other);
  for (size_t i = 0; i < valid; ++i) {
    sum[i] += other[i];
    // Arithmetic leaves NaN payloads to the hardware (a CPU keeps an operand's, a GPU writes
    // its own): one NaN, so every device writes the same frame.
    if (sum[i] != sum[i]) sum[i] = std::numeric_limits<T>::quiet_NaN();
  }
  header = szp::kRawHeader;
  return szp::portable::write_raw_block(sum, valid, body);
}

// combine_block for two frame blocks, with a register-only path for the common case: two
// coded full blocks whose values are small enough that the sum needs no range check.
// Gfni: the register path's plane transposes (residual_kernels_avx512.hpp).
template <class T, bool Gfni = false>
COMMPRESS_HD size_t combine_frame_blocks(const FrameBlock<T>& a, const FrameBlock<T>& b, size_t valid,
                            const szp::LinearQuantizer<T>& qz, uint8_t& header,
                            std::byte* body) {
#if COMMPRESS_HOMOMORPHIC_AVX512
  if (valid == kBlockValues && a.q_bits() <= kSafeQBits<T> && b.q_bits() <= kSafeQBits<T> &&
      !a.zero() && !b.zero()) {
    const size_t size = detail::sum_coded_avx512<T, Gfni>(a.header, a.body, b.header, b.body, header, body);
    if (size < raw_body_size<T>(valid)) return size;
  }
#endif
  return combine_block<T>(a, b, valid, qz, header, body);
}

// combine_block(LocalBlock(x), f) with a register-only path for the common case: local values
// that quantize into a block the encoder surely codes (not raw), and a frame block that is
// zero or coded with values small enough that the sum needs no range check.
template <class T, bool Gfni = false>
COMMPRESS_HD size_t combine_local_block(const T* x, size_t valid, const FrameBlock<T>& f,
                           const szp::LinearQuantizer<T>& qz, uint8_t& header, std::byte* body) {
#if COMMPRESS_HOMOMORPHIC_AVX512
  using L = szp::detail::Lanes<T>;
  if (valid == kBlockValues && !f.raw()) {
    __m512i q[L::kVectors], r[L::kVectors];
    if (detail::quantize_vectors<T>(x, qz, q, r)) {
      if (detail::magnitudes_below<T>(q, 0)) return f.emit(valid, header, body);
      // Below the raw size even in plain form: the encoder surely codes this block.
      if (detail::magnitudes_below<T>(r, kPlainBelowRawBits<T>)) {
        if (f.zero()) return detail::encode_bounded_vectors<T, Gfni>(r, header, body);
        if (f.q_bits() <= kSafeQBits<T> && detail::magnitudes_below<T>(q, kSafeQBits<T>)) {
          __m512i fr[L::kVectors];
          detail::decode_residual_vectors<T, Gfni>(f.header, f.body, fr);
          for (int g = 0; g < L::kVectors; ++g) r[g] = L::add(r[g], fr[g]);
          const size_t size = detail::encode_bounded_vectors<T, Gfni>(r, header, body);
          if (size < raw_body_size<T>(valid)) return size;
        }
      }
    }
  }
#endif
  return combine_block<T>(LocalBlock<T>(x, valid, qz), f, valid, qz, header, body);
}

}  // namespace commpress::codec::homomorphic
