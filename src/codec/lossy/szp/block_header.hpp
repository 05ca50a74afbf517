// The one-byte block header of szp payloads and the body size it implies. A body's size is
// a pure function of (header byte, valid values in the block, dtype, mode), which is what
// lets a decoder find every block by a prefix sum over the header bytes alone.
// Byte-by-byte layout: docs/format/szp.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace commpress::codec::szp {

// Values per block. Bit-planes and sign maps are one 32-bit word per block.
inline constexpr size_t kBlockValues = 32;

// lossy: residuals of quantized integers; lossless: residuals of order-mapped bit patterns.
// The two modes share the body layout but read the outlier header range differently.
enum class Mode : uint8_t { lossy, lossless };

template <class T>
struct BlockTraits;
template <>
struct BlockTraits<float> {
  using Int = int32_t;    // quantized values and residuals (arithmetic wraps modulo 2^32)
  using UInt = uint32_t;  // residual magnitudes, bit patterns
  static constexpr int kBits = 32;
};
template <>
struct BlockTraits<double> {
  using Int = int64_t;
  using UInt = uint64_t;
  static constexpr int kBits = 64;
};

inline constexpr uint8_t kZeroHeader = 0x00;
inline constexpr uint8_t kRawHeader = 0xFF;
inline constexpr uint8_t kPlainLast = 0x40;    // plain: header = width, 1..64
inline constexpr uint8_t kOutlierFirst = 0x41;
inline constexpr uint8_t kLossyOutlierLast = 0xC0;  // 4 first-value lengths x 32 widths
inline constexpr int kLossyOutlierMaxWidth = 31;
inline constexpr int kLossyOutlierMaxBytes = 4;

enum class BlockKind : uint8_t {
  zero,     // every value of the block is 0 (lossy: q == 0; lossless: +0.0); no body
  plain,    // sign map + `width` bit-planes of |r[0..31]|
  outlier,  // first value in `first_bytes` bytes, then sign map + `width` planes of |r[1..31]|
  raw,      // the valid values verbatim
  invalid,  // a header byte no encoder writes: the payload is corrupt
};

struct BlockHeader {
  BlockKind kind = BlockKind::invalid;
  uint8_t width = 0;        // bit-planes in the body (0 allowed only for outlier)
  uint8_t first_bytes = 0;  // outlier only: bytes holding the first value
};

// Bytes of a sign map plus `width` planes; nothing at all when every residual is zero.
constexpr size_t planes_size(int width) { return width > 0 ? 4 + 4 * size_t(width) : 0; }

template <class T>
constexpr BlockHeader parse_header(uint8_t h, Mode mode) {
  constexpr int max_width = BlockTraits<T>::kBits;
  if (h == kZeroHeader) return {BlockKind::zero, 0, 0};
  if (h == kRawHeader) return {BlockKind::raw, 0, 0};
  if (h <= kPlainLast)
    return h <= max_width ? BlockHeader{BlockKind::plain, h, 0} : BlockHeader{};
  int idx = h - kOutlierFirst;
  if (mode == Mode::lossy) {
    if (h > kLossyOutlierLast) return {};
    return {BlockKind::outlier, uint8_t(idx % 32), uint8_t(idx / 32 + 1)};
  }
  // Lossless: the first value is always stored whole, so only the width varies.
  if (idx > max_width) return {};
  return {BlockKind::outlier, uint8_t(idx), uint8_t(sizeof(T))};
}

constexpr uint8_t plain_header(int width) { return uint8_t(width); }  // 1..64

// Lossy outlier: first value zigzag-coded in first_bytes (1..4) bytes, width 0..31.
constexpr uint8_t lossy_outlier_header(int first_bytes, int width) {
  return uint8_t(kOutlierFirst + 32 * (first_bytes - 1) + width);
}
// Lossless outlier: first value's own bit pattern, width 0..kBits.
constexpr uint8_t lossless_outlier_header(int width) { return uint8_t(kOutlierFirst + width); }

// Body bytes for a block holding `valid` (1..32) values; SIZE_MAX for an invalid header.
template <class T>
constexpr size_t body_size(BlockHeader hd, size_t valid) {
  switch (hd.kind) {
    case BlockKind::zero: return 0;
    case BlockKind::plain: return planes_size(hd.width);
    case BlockKind::outlier: return hd.first_bytes + planes_size(hd.width);
    case BlockKind::raw: return valid * sizeof(T);
    case BlockKind::invalid: break;
  }
  return SIZE_MAX;
}

template <class T>
constexpr size_t body_size(uint8_t h, size_t valid, Mode mode) {
  return body_size<T>(parse_header<T>(h, mode), valid);
}

template <class T>
constexpr size_t largest_body_size(Mode mode) {
  size_t m = 0;
  for (int h = 0; h < 256; ++h) {
    size_t s = body_size<T>(uint8_t(h), kBlockValues, mode);
    if (s != SIZE_MAX && s > m) m = s;
  }
  return m;
}

// Both modes' results, computed by the compiler: a frame's capacity is asked for on every
// collective call, and the 256-header scan took ~10k instructions each time at run time.
template <class T>
inline constexpr size_t kLargestBodySize[2] = {largest_body_size<T>(Mode::lossy),
                                               largest_body_size<T>(Mode::lossless)};

// Largest body any valid header implies for a full block (the worst case encoders reserve).
template <class T>
constexpr size_t max_body_size(Mode mode) {
  return kLargestBodySize<T>[mode == Mode::lossy ? 0 : 1];
}

// Full-block body sizes indexed by header byte, for the decoder's prefix sum. Invalid
// headers hold kInvalidEntry, a bit no valid size has, so OR-ing entries detects them.
inline constexpr uint16_t kInvalidEntry = 0x8000;

template <class T>
constexpr std::array<uint16_t, 256> make_body_size_table(Mode mode) {
  std::array<uint16_t, 256> t{};
  for (int h = 0; h < 256; ++h) {
    size_t s = body_size<T>(uint8_t(h), kBlockValues, mode);
    t[h] = s == SIZE_MAX ? kInvalidEntry : uint16_t(s);
  }
  return t;
}

template <class T>
inline constexpr std::array<uint16_t, 256> kBodySizeTable[2] = {
    make_body_size_table<T>(Mode::lossy), make_body_size_table<T>(Mode::lossless)};

constexpr size_t block_count(size_t n) { return (n + kBlockValues - 1) / kBlockValues; }
// Values held by block b of an n-value array.
constexpr size_t valid_in_block(size_t n, size_t b) {
  size_t start = b * kBlockValues;
  return n - start < kBlockValues ? n - start : kBlockValues;
}

// The largest payload any valid frame of n values can have: one header byte per block plus
// the largest body per block.
template <class T>
constexpr size_t max_payload_size(size_t n, Mode mode) {
  return block_count(n) * (1 + max_body_size<T>(mode));
}

}  // namespace commpress::codec::szp
