// Rabenseifner: recursive halving reduce-scatter, then recursive doubling allgather (or the
// finished blocks straight to a root), any p through the MPICH fold (reduce_fold.hpp).
// Decompress-operate throughout, so every op works. A transfer is compressed while its range
// is at least ctx.break_even bytes and raw below, where compression stops paying: halving
// shrinks the ranges step by step, so large vectors compress the first steps only.
// The allgather phase encodes each finished super-block once and forwards those bytes
// unchanged, so every rank decodes identical values.
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"
#include "comm/selection/error_budget.hpp"

namespace commpress::comm::detail {

enum class ReduceEnd {
  scatter,  // out: this rank's block of layout (reduce_scatter_block)
  all,      // out: the whole vector on every rank (allreduce)
  root,     // out: the whole vector on root only (reduce)
};

// How codec errors reach the result, from the sizes of every transfer (docs/error-bounds.md).
// Transfers below break_even bytes go raw; p ranks.
QuantizationCount rabenseifner_quantizations(const Wire& wire, size_t break_even, int p,
                                             const BlockLayout& layout, ReduceEnd end);

// input may be out (it is copied first). layout has one block per rank.
Status rabenseifner(const ReduceContext& ctx, const std::byte* input, const BlockLayout& layout,
                    ReduceEnd end, int root, std::byte* out);

}  // namespace commpress::comm::detail
