// HomomorphicRecursiveDoubling: every rank compresses its whole vector once (szp), then
// log2(p2) exchanges with partners at distance 1, 2, 4, ... each followed by
// combine(own frame, partner's frame); non-powers of two are folded as MPICH does
// (reduce_fold.hpp). Partners combine the same two operands, so every rank ends with the
// identical frame: a sum of p inputs each quantized once.
// For reduce the same butterfly's reduction half runs instead: a binomial tree towards the
// root combining frames, which the root alone decodes.
//
// Overlap: every chunk frame is its own message and moves to the next step as soon as it
// has been combined, while the other chunks of the step are still in flight.
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

// out: the whole vector on every rank (may be input).
Status homomorphic_recursive_doubling(const ReduceContext& ctx, const std::byte* input, size_t n,
                                      std::byte* out);

// out: the whole vector at root.
Status homomorphic_binomial_reduce(const ReduceContext& ctx, const std::byte* input, size_t n,
                                   int root, std::byte* out);

}  // namespace commpress::comm::detail
