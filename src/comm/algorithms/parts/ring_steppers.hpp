// The three ways a ring reduce-scatter step treats a received partial:
//   DOC (DocRing):        decode, operate with the local chunk, encode again (any op, any codec);
//   homomorphic:          every block compressed once up front, then combine(frame, frame);
//   fused (FusedRing):    combine_raw(local chunk, frame), nothing compressed up front.
// The homomorphic two need the szp codec and Op::sum (checked before the algorithm runs).
#pragma once

#include <memory>

#include "comm/algorithms/parts/ring_reduce_scatter.hpp"

namespace commpress::comm::detail {

// input holds the whole vector of layout.total() elements of this rank.
std::unique_ptr<RingStepper> make_doc_stepper(const ReduceContext& ctx, const std::byte* input,
                                              const BlockLayout& layout);
std::unique_ptr<RingStepper> make_homomorphic_stepper(const ReduceContext& ctx,
                                                      const std::byte* input,
                                                      const BlockLayout& layout);
std::unique_ptr<RingStepper> make_fused_stepper(const ReduceContext& ctx, const std::byte* input,
                                                const BlockLayout& layout);

// Where chunk j of block b starts in a vector laid out by layout.
inline size_t chunk_offset(const Wire& w, const BlockLayout& layout, int b, size_t j) {
  return layout.begin(b) + j * w.chunk_elems();
}

}  // namespace commpress::comm::detail
