// LEB128 numbers (7 bits a byte, low bits first, the top bit set on every byte but the
// last), as szp-e's header runs, sparse events and Huffman tables write them
// (docs/format/szp-e.md). The reader takes exactly one spelling of each number, the shortest,
// so that a frame's bytes follow from its content.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commpress::core {

// Writes v at p and advances p (at most 10 bytes).
inline void put_leb128(uint8_t*& p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = uint8_t(v | 0x80);
    v >>= 7;
  }
  *p++ = uint8_t(v);
}

// Reads one number of at most `bits` bits (1..64) from in[pos..len) and advances pos; false
// at the end of the bytes, on a number wider than `bits`, or on a longer spelling than the
// shortest (a last byte of 0 after the first).
inline bool get_leb128(const uint8_t* in, size_t len, size_t& pos, int bits, uint64_t& v) {
  v = 0;
  for (int shift = 0;; shift += 7) {
    if (pos == len || shift >= bits) return false;
    const uint8_t b = in[pos++];
    const uint64_t low = uint64_t(b & 0x7F);
    if (shift > 0 && b == 0) return false;
    if (bits - shift < 7 && (low >> (bits - shift)) != 0) return false;
    v |= low << shift;
    if (!(b & 0x80)) return true;
  }
}

}  // namespace commpress::core
