// PlainRing: the ring reduce-scatter of MPI textbooks, uncompressed, run by commpress. Some
// MPI libraries reduce a reduce_scatter_block's whole vector at one rank and then scatter it
// (Open MPI 4.1 does for blocks of 1 MiB and more at 4 to 7 ranks), moving and adding p times
// what a ring does. Where the machine profile measured MPI's own that much slower, Auto runs
// this instead of it (docs/models.md), with MPI's error: rounding only.
#pragma once

#include <cstddef>

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

// Needs ctx.size >= 2 and an uncompressed ctx.wire. input holds p blocks of m elements; out
// (which must not overlap input) receives block ctx.rank of their reduction. Blocks travel in
// pieces of the wire's chunk size, each reduced as it arrives while it is still in cache.
Status plain_ring_reduce_scatter(const ReduceContext& ctx, const std::byte* input, size_t m,
                                 std::byte* out);

}  // namespace commpress::comm::detail
