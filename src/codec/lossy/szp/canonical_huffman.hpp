// Canonical Huffman codes over an alphabet of 2^16 symbols, with code lengths limited to
// kMaxLength bits (docs/format/szp-e.md, "Huffman table" and "Pieces"): the entropy stage of
// szp-e's Huffman-coded shaped payloads, as SZ3 codes its quantization codes. The table holds
// only the used symbols' lengths; codes follow from them (canonical order: by length, then
// by symbol), written most significant bit first and padded with 0 bits to a whole byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::codec::szp::huffman {

inline constexpr size_t kAlphabet = size_t{1} << 16;
inline constexpr int kMaxLength = 24;
// The largest table: the symbol count and, per symbol, a gap and a length.
inline constexpr size_t kMaxTableSize = 3 + kAlphabet * (3 + 1);

constexpr size_t max_encoded_size(size_t symbols) { return (symbols * kMaxLength + 7) / 8; }

// The encoder's side: a length (0 = unused) and a code per symbol.
class Encoder {
 public:
  // Symbols below this (the small codes that fill a block at tight bounds) are also looked
  // up two at a time, in a table of their pairs' joined codes.
  static constexpr size_t kPairSymbols = 64;

  // The code of the counts (kAlphabet of them, at least one not 0): Huffman's, with the
  // counts halved until no length exceeds kMaxLength.
  explicit Encoder(const uint64_t* count);
  // Writes the table to dst (room for kMaxTableSize bytes); returns its size.
  size_t write_table(std::byte* dst) const;
  // Writes the codes of syms[0..n) to dst (room for max_encoded_size(n)); returns the bytes.
  size_t encode(const uint16_t* syms, size_t n, std::byte* dst) const;

 private:
  // Per symbol its code above its length's 8 bits, so that one load gives both.
  std::vector<uint32_t> entry_;
  // By a * kPairSymbols + b: the codes of a then b joined, above their length's 8 bits.
  std::vector<uint64_t> pair_;
  int32_t zero_symbol_ = -1;  // the symbol of the one-bit code 0, if any
};

// The decoder's side, built from a table.
class Decoder {
 public:
  // Reads a table from the front of in; returns the bytes it took. A table that names a
  // symbol twice or past the alphabet, a length of 0 or over kMaxLength, or lengths no prefix
  // code can have is corrupt_frame.
  Result<size_t> read_table(std::span<const std::byte> in);
  // Decodes exactly n symbols from in, which they must fill to its last byte.
  Status decode(std::span<const std::byte> in, size_t n, uint16_t* syms) const;
  // decode() of two streams at once, their look-ups interleaved: each symbol's look-up waits
  // on the one before it in its stream, so two streams keep twice the look-ups in flight.
  // The first status is decode()'s of stream a; the second decode()'s of stream b where the
  // first is ok (and meaningless otherwise).
  std::pair<Status, Status> decode_pair(std::span<const std::byte> in_a, size_t n_a,
                                        uint16_t* syms_a, std::span<const std::byte> in_b,
                                        size_t n_b, uint16_t* syms_b) const;

 private:
  struct Stream;
  struct Fast;
  Fast fast() const;
  static void take_run(Stream& s, const Fast& f);
  bool take(Stream& s, const Fast& f) const;
  bool take_short(Stream& s, const Fast& f) const;
  Status finish(Stream& s, const Fast& f) const;

  static constexpr int kLutBits = 12;
  // By the stream's next kLutBits bits, the codes that lie whole within them, up to
  // kLutSymbols of them, so that one look-up (the step each symbol otherwise waits on)
  // yields several short codes: the symbols in bits 0-47, 16 bits each, the first code's
  // length in bits 48-55, all the codes' length in bits 56-59 and their count in bits
  // 60-63 (0 where the first code is longer than kLutBits bits or there is none).
  static constexpr int kLutSymbols = 3;
  std::vector<uint64_t> lut_;
  uint32_t first_code_[kMaxLength + 1] = {}, first_index_[kMaxLength + 1] = {},
           count_[kMaxLength + 1] = {};
  // end_[l]: the first kMaxLength-bit pattern past every code of length l (left-aligned).
  uint32_t end_[kMaxLength + 1] = {};
  std::vector<uint16_t> sorted_;  // symbols in canonical order
  int max_length_ = 0;
};

}  // namespace commpress::codec::szp::huffman
