// Hierarchical (mixed) reductions over nodes of equal size L (N nodes):
//   allreduce: raw reduce-scatter inside each node (MPI's own), a compressed ring allreduce
//     of each node-block across nodes among the ranks of equal local rank, raw allgather
//     inside the node (MPI's own);
//   reduce_scatter_block / reduce: local rank l reduces, raw inside the node, the column of
//     blocks owned by the local-rank-l ranks of all nodes; a compressed ring reduce-scatter
//     across nodes leaves each rank its own block (reduce: whose frames then go to the root).
// The cross-node ring is the homomorphic one for sums with szp, the DOC ring otherwise.
// Uneven nodes are not handled here: the plan runs that ring over the whole communicator.
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"
#include "comm/selection/error_budget.hpp"
#include "comm/session/hierarchy.hpp"

namespace commpress::comm::detail {

Algorithm hierarchical_inner(Op op, const Wire& wire);

// nodes: of the even layout.
QuantizationCount hierarchical_quantizations(int nodes, Op op, const Wire& wire,
                                             bool final_frames);

// All need h.even(). input may be out for allreduce.
Status hierarchical_allreduce(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                              size_t n, std::byte* out);
// layout: one block per rank of ctx.comm; out: this rank's block.
Status hierarchical_reduce_scatter(const ReduceContext& ctx, const Hierarchy& h,
                                   const std::byte* input, const BlockLayout& layout,
                                   std::byte* out);
// out: the whole vector at root.
Status hierarchical_reduce(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                           const BlockLayout& layout, int root, std::byte* out);

}  // namespace commpress::comm::detail
