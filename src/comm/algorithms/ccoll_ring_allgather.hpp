// Ring (C-Coll's allgather ring): p-1 steps; at step s a rank passes the block it received at
// step s-1 to its right neighbour, and decodes that block while the next one arrives.
#pragma once

#include "comm/algorithms/parts/allgather_blocks.hpp"

namespace commpress::comm::detail {

// mine: this rank's encoded block; recv: all p decoded blocks of n elements.
Status ccoll_ring_allgather(const Collective& c, Buffer mine, std::byte* recv, size_t n,
                            Traffic& traffic, Status& first);

}  // namespace commpress::comm::detail
