// Pairwise exchange all-to-all over compressed blocks: p - 1 steps, step k sends this rank's
// frames for rank + k and receives rank - k's frames for this rank; the block received in one
// step decodes while the next step's messages move. Serves unequal blocks (alltoallv).
#pragma once

#include <vector>

#include "comm/algorithms/parts/alltoall_blocks.hpp"

namespace commpress::comm::detail {

// frames[d]: the encoded block for rank d (frames[rank] unused); sent[d]: its element count;
// recv_layout: where (and how many elements) each rank's block lands in recv.
Status pairwise_alltoall(const Collective& c, const std::vector<Buffer>& frames,
                         const std::vector<size_t>& sent, std::byte* recv,
                         const AlltoallLayout& recv_layout, Traffic& traffic, Status& first);

}  // namespace commpress::comm::detail
