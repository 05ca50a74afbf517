// RecursiveDoubling (Bruck's dissemination allgather): ceil(log2 p) steps, correct for any
// p: at distance d = 1, 2, 4, ... a rank sends the first min(d, p-d) blocks it holds (blocks
// rank, rank+1, ... mod p, back to back) to rank-d and appends those of rank+d.
#pragma once

#include "comm/algorithms/parts/allgather_blocks.hpp"

namespace commpress::comm::detail {

// mine: this rank's encoded block; recv: all p decoded blocks of n elements.
Status bruck_allgather(const Collective& c, Buffer mine, std::byte* recv, size_t n,
                       Traffic& traffic, Status& first);

// The largest message of the pattern, in bytes at most.
size_t bruck_largest_message(const Collective& c, size_t n);

}  // namespace commpress::comm::detail
