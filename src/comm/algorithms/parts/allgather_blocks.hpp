// What the compressed allgathers (C-Coll's ring, Bruck's dissemination) share: each rank's
// block is one frame (or, uncompressed, its raw bytes) encoded once by its owner; `first`
// keeps the first block that failed to decode while the others still move on, so that every
// rank keeps to the pattern and the outcome is agreed afterwards.
#pragma once

#include <string>

#include "comm/session/collective.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/transport/frame_transport.hpp"

namespace commpress::comm::detail {

inline constexpr int kAllgatherTag = 0x200;

inline std::string allgather_block_label(int owner) {
  return "block of rank " + std::to_string(owner) + ": ";
}

}  // namespace commpress::comm::detail
