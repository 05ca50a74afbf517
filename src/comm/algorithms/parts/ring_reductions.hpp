// The ring algorithms (C-Coll's DocRing, hZCCL's HomomorphicRing, HomComp_F's FusedRing) as
// whole operations: a ring reduce-scatter, then either the owner keeps its block's values
// (reduce_scatter_block), the finished frames circulate (allreduce), or they go to a root
// (reduce, reduce_gather.hpp). Their files differ only in the ring step (ring_steppers.hpp).
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/selection/error_budget.hpp"

namespace commpress::comm::detail {

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

// The reductions run by the ring of the given kind, on the session's plan.
Status ring_run_allreduce(ReduceSession& s, Algorithm kind, const std::byte* in, std::byte* out,
                          size_t n);
Status ring_run_reduce_scatter(ReduceSession& s, Algorithm kind, const std::byte* in,
                               std::byte* out, size_t m);
Status ring_run_reduce(ReduceSession& s, Algorithm kind, const std::byte* in, std::byte* out,
                       size_t n, int root);

// A ring's Runner: the runs above, of the kind the plan runs.
constexpr Runner ring_runner() {
  Runner r;
  r.allreduce = [](ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
    return ring_run_allreduce(s, s.algorithm(), in, out, n);
  };
  r.reduce_scatter = [](ReduceSession& s, const std::byte* in, std::byte* out, size_t m) {
    return ring_run_reduce_scatter(s, s.algorithm(), in, out, m);
  };
  r.reduce = [](ReduceSession& s, const std::byte* in, std::byte* out, size_t n, int root) {
    return ring_run_reduce(s, s.algorithm(), in, out, n, root);
  };
  r.quantizations = [](const ReduceShape& shape) {
    return ring_quantizations(shape.algorithm, shape.ranks,
                              shape.operation != model::Operation::reduce_scatter);
  };
  return r;
}

}  // namespace commpress::comm::detail
