// The ring reduce-scatter shared by the DOC, homomorphic and fused rings. Over p - 1 steps a
// rank passes the partial of block (rank - s - 1) to its right neighbour and receives the
// partial of block (rank - s - 2) from its left; at the last step that is its own block,
// complete. What a rank does with a received partial is the RingStepper's business.
//
// Overlap: every block travels as chunk frames, one message each, and a chunk moves on as
// soon as it is ready: chunk j of step s+1 is sent right after chunk j of step s arrived and
// was combined, while chunk j+1 of step s is still in flight.
#pragma once

#include <span>
#include <vector>

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

class RingStepper {
 public:
  virtual ~RingStepper() = default;
  // This rank's contribution to chunk j of block b, encoded: what it sends at step 0.
  virtual Status first(int b, size_t j, Bytes& out) = 0;
  // Called once the step-0 chunks are posted (work that can overlap their transfer).
  virtual void started() {}
  // The received partial of chunk j of block b plus this rank's contribution, as the frame
  // passed on at the next step.
  virtual Status pass(int b, size_t j, std::span<const std::byte> in, Bytes& out) = 0;
  // At the owner: the complete chunk as the frame that travels on (when frame is non-null)
  // and as values (when values is non-null; the decoded frame if there is one).
  virtual Status last(int b, size_t j, std::span<const std::byte> in, Bytes* frame,
                      std::byte* values) = 0;
};

// Needs ctx.size >= 2. own_frames (if non-null) receives the frames of block ctx.rank, one
// per chunk; own_values (if non-null) its values.
Status ring_reduce_scatter(const ReduceContext& ctx, const BlockLayout& layout, RingStepper& st,
                           std::vector<Bytes>* own_frames, std::byte* own_values);

}  // namespace commpress::comm::detail
