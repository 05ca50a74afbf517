// What the compressed all-to-all schedules (pairwise exchange, Bruck) share: the block each
// destination gets is encoded once by its owner into frames[dest] and decoded once at the
// destination; `first` keeps the first block that failed to encode or decode while the others
// still move, so every rank keeps to the pattern and the outcome is agreed afterwards.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "comm/session/collective.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/transport/frame_transport.hpp"

namespace commpress::comm::detail {

inline constexpr int kAlltoallTag = 0x280;

// Element counts and offsets of one block per rank (MPI_Alltoallv's counts and displs).
struct AlltoallLayout {
  std::vector<size_t> count;
  std::vector<size_t> displ;
};

inline std::string alltoall_block_label(int from) {
  return "block from rank " + std::to_string(from) + ": ";
}

}  // namespace commpress::comm::detail
