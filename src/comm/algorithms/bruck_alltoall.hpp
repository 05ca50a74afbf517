// Bruck's all-to-all (Bruck, Ho, Kipnis, Upfal, Weathersby 1997) over compressed blocks:
// the frame for rank + j sits in slot j; step d (= 1, 2, 4, ...) sends every slot whose index
// has bit d set to rank + d, concatenated, and the frames received from rank - d take their
// places. Frames are forwarded unchanged (compressed once by their owner); after the last
// step slot j holds rank - j's block for this rank. Equal blocks only (alltoall).
#pragma once

#include <vector>

#include "comm/algorithms/parts/alltoall_blocks.hpp"

namespace commpress::comm::detail {

// frames[d]: the encoded block of n elements for rank d (frames[rank] unused; consumed).
Status bruck_alltoall(const Collective& c, std::vector<Buffer> frames, std::byte* recv, size_t n,
                      Traffic& traffic, Status& first);

// The largest message a rank sends or receives (capacity for the int-count check).
size_t bruck_alltoall_largest_message(const Collective& c, size_t n);

}  // namespace commpress::comm::detail
