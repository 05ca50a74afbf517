// A bounded bit stream. Fields are packed least-significant bit first: the first field
// written occupies the low bits of byte 0. The writer never passes the end of its buffer; the
// reader never reads past its input and reports truncation and untidy endings (trailing
// bytes, non-zero padding) instead of inventing bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "commpress/status.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::predictive {

inline constexpr unsigned kMaxFieldBits = 56;  // one put/get; wider fields use the _wide forms

inline uint64_t low_bits(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

class BitWriter {
 public:
  explicit BitWriter(std::span<std::byte> out) : out_(out) {}

  // Appends the low nbits (<= kMaxFieldBits) of v.
  void put(uint64_t v, unsigned nbits) {
    acc_ |= (v & low_bits(nbits)) << fill_;  // fill_ < 8, so fill_ + nbits < 64
    fill_ += nbits;
    const unsigned bytes = fill_ >> 3;
    if (bytes == 0) return;
    if (pos_ + 8 <= out_.size()) {
      // Whole-word store; the bytes past `bytes` are zeros that later stores overwrite.
      core::store_le<uint64_t>(out_.data() + pos_, acc_);
    } else if (pos_ + bytes <= out_.size()) {
      for (unsigned i = 0; i < bytes; ++i) out_[pos_ + i] = std::byte(acc_ >> (8 * i));
    } else {
      overflow_ = true;
      acc_ = 0;
      fill_ = 0;
      return;
    }
    pos_ += bytes;
    acc_ >>= 8 * bytes;  // bytes <= 7: the shift stays below 64
    fill_ &= 7;
  }

  void put_wide(uint64_t v, unsigned nbits) {  // nbits <= 64
    if (nbits <= kMaxFieldBits) return put(v, nbits);
    put(v & low_bits(32), 32);
    put(v >> 32, nbits - 32);
  }

  // Flushes the last partial byte (zero-padded); returns the bytes written.
  Result<size_t> finish() {
    if (fill_ > 0) {
      if (pos_ >= out_.size()) overflow_ = true;
      else out_[pos_++] = std::byte(acc_);
      acc_ = 0;
      fill_ = 0;
    }
    if (overflow_)
      return Status{ErrorCode::capacity,
                    "bit stream exceeds its " + std::to_string(out_.size()) + "-byte buffer"};
    return pos_;
  }

 private:
  std::span<std::byte> out_;
  size_t pos_ = 0;
  uint64_t acc_ = 0;
  unsigned fill_ = 0;
  bool overflow_ = false;
};

class BitReader {
 public:
  explicit BitReader(std::span<const std::byte> in) : in_(in) {}

  // The next nbits (<= kMaxFieldBits). Past the end it returns 0 and marks the stream
  // truncated; callers check ok() or finish() before trusting what they decoded.
  uint64_t get(unsigned nbits) {
    if (avail_ < nbits) {
      refill();
      if (avail_ < nbits) {
        truncated_ = true;
        acc_ = 0;
        avail_ = 0;
        return 0;
      }
    }
    const uint64_t v = acc_ & low_bits(nbits);
    acc_ >>= nbits;  // nbits <= 56
    avail_ -= nbits;
    return v;
  }

  uint64_t get_wide(unsigned nbits) {  // nbits <= 64
    if (nbits <= kMaxFieldBits) return get(nbits);
    const uint64_t lo = get(32);
    return lo | (get(nbits - 32) << 32);
  }

  bool ok() const { return !truncated_; }

  // The whole input must have been consumed: at most 7 padding bits left, all zero.
  Status finish() {
    if (truncated_)
      return {ErrorCode::truncated, "bit stream of " + std::to_string(in_.size()) +
                                        " bytes ends before the last element"};
    const size_t left = avail_ + 8 * (in_.size() - pos_);
    if (left >= 8)
      return {ErrorCode::corrupt_frame, std::to_string(left / 8) +
                                            " trailing bytes after the last element"};
    if (get(unsigned(left)) != 0)
      return {ErrorCode::corrupt_frame, "non-zero padding bits after the last element"};
    return {};
  }

 private:
  // Tops the accumulator up to at least 56 bits when the input allows. Bits above avail_
  // may already hold the following stream bits; OR-ing the same bits again is harmless.
  void refill() {
    if (pos_ + 8 <= in_.size()) {
      acc_ |= core::load_le<uint64_t>(in_.data() + pos_) << avail_;
      const unsigned bytes = (63 - avail_) >> 3;
      pos_ += bytes;
      avail_ += 8 * bytes;
      return;
    }
    while (avail_ <= 56 && pos_ < in_.size()) {
      acc_ |= uint64_t(in_[pos_++]) << avail_;
      avail_ += 8;
    }
  }

  std::span<const std::byte> in_;
  size_t pos_ = 0;
  uint64_t acc_ = 0;
  unsigned avail_ = 0;
  bool truncated_ = false;
};

}  // namespace commpress::codec::predictive
