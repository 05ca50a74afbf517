// The allgather phase of the ring allreduces: every rank's finished block circulates the ring
// as the very frames its owner produced (no recompression; for homomorphic rings the owner's
// final combined frame as is), and every rank decodes every block, its own included, so all
// ranks end with identical results.
//
// Overlap: chunk j of a block is forwarded at step s+1 as soon as it arrived at step s, and
// decoded while the next chunks are in flight.
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

// own: block ctx.rank of layout, encoded with own.wire (the same wire on every rank).
// out: the whole vector (layout.total() elements).
Status ring_allgather(const ReduceContext& ctx, const BlockLayout& layout, const OwnedBlock& own,
                      std::byte* out);

// Decodes an owned block's chunks into out (the block's first element).
void decode_owned(const ReduceContext& ctx, const OwnedBlock& own, std::byte* out);

}  // namespace commpress::comm::detail
