// The ring algorithms (DocRing, HomomorphicRing, FusedRing) as whole operations: a ring
// reduce-scatter, then either the owner keeps its block's values (reduce_scatter_block),
// the finished frames circulate (allreduce), or they go to a root (reduce, reduce_gather.hpp).
#pragma once

#include "comm/detail/error_budget.hpp"
#include "comm/detail/reduce_context.hpp"

namespace commpress::comm::detail {

bool is_ring(Algorithm a);
bool is_homomorphic(Algorithm a);  // combines szp frames: needs codec szp and Op::sum

// How codec errors reach a ring's result over p ranks; final_frames when the owner's block
// is encoded once more to travel on (allreduce, reduce).
QuantizationCount ring_quantizations(Algorithm kind, int p, bool final_frames);

// The rest need ctx.size >= 2; input holds the whole vector (layout.total() elements).
// out: this rank's block of layout, as values.
Status ring_reduce_scatter_values(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                                  const BlockLayout& layout, std::byte* out);
// own: this rank's block of layout, as the frames that travel on.
Status ring_owned_block(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                        const BlockLayout& layout, OwnedBlock& own);
// out: the whole reduced vector; it may be input (everything is read before out is written).
Status ring_allreduce(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                      const BlockLayout& layout, std::byte* out);

}  // namespace commpress::comm::detail
