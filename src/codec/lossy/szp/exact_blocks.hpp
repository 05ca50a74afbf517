// What an szp frame of absolute bound 0 (exact: a lossless request, or a REL bound over a
// range of 0) may hold: zero and raw blocks only, also after homomorphic sums. Any other block
// would be a multiple of a step of 0 and decode, silently, to zeros; a forged or damaged frame
// with one is refused instead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

#include "codec/lossy/szp/block_header.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::szp {

// payload starts with one header byte per block; a payload too short for them is left to the
// decoder's own length checks.
inline Status check_exact_blocks(std::span<const std::byte> payload, size_t n) {
  const size_t nb = std::min(block_count(n), payload.size());
  for (size_t b = 0; b < nb; ++b) {
    const auto h = std::to_integer<uint8_t>(payload[b]);
    if (h != kZeroHeader && h != kRawHeader)
      return {ErrorCode::corrupt_frame, "szp block " + std::to_string(b) + " has header byte " +
                                            std::to_string(h) +
                                            " in a frame of bound 0, which holds only zero and "
                                            "raw blocks"};
  }
  return {};
}

}  // namespace commpress::codec::szp
