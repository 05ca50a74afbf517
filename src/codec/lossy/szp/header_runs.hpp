// szp-e's header stream (docs/format/szp-e.md): the block header bytes of a chunk with every
// run of zero blocks written as one 0x00 byte and the run's length in LEB128. At loose bounds
// nearly every block is a zero block, and this is what makes one cost a few bits instead of a
// byte; dense streams are unchanged in size (a lone zero block costs two bytes, at most 2 per
// block in all).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/lossy/szp/block_header.hpp"
#include "core/leb128.hpp"

namespace commpress::codec::szp {

// Largest run-length stream of nb blocks.
constexpr size_t max_header_runs_size(size_t nb) { return 2 * nb; }

// Writes the stream of h[0..nb) to out (room for max_header_runs_size(nb)); returns its size.
inline size_t encode_header_runs(const uint8_t* h, size_t nb, uint8_t* out) {
  size_t o = 0;
  for (size_t b = 0; b < nb;) {
    if (h[b] != kZeroHeader) {
      out[o++] = h[b++];
      continue;
    }
    size_t run = 0;
    while (b < nb && h[b] == kZeroHeader) ++b, ++run;
    out[o++] = kZeroHeader;
    uint8_t* at = out + o;
    core::put_leb128(at, run);
    o = size_t(at - out);
  }
  return o;
}

// Expands a stream into exactly nb header bytes. False when it holds a run of 0, a run past
// nb, a length spelled longer than it needs, fewer than nb blocks, bytes after the last
// block, or ends inside a length.
inline bool decode_header_runs(const uint8_t* in, size_t len, uint8_t* h, size_t nb) {
  size_t i = 0, b = 0;
  while (i < len) {
    if (b == nb) return false;
    const uint8_t c = in[i++];
    if (c != kZeroHeader) {
      h[b++] = c;
      continue;
    }
    uint64_t run = 0;
    if (!core::get_leb128(in, len, i, 64, run) || run == 0 || run > nb - b) return false;
    for (uint64_t k = 0; k < run; ++k) h[b++] = kZeroHeader;
  }
  return b == nb;
}

}  // namespace commpress::codec::szp
