// What both homomorphic rings (hZCCL's, hzccl_ring.cpp; HomComp_F's, homcomp_fused_ring.cpp)
// share: every input is quantized exactly once (with the frame's bound) and afterwards only
// quantized integers are added, so a sum's error is p step bounds whatever the hop count.
// They differ in how a rank adds its own contribution to a received partial (add_own).
#pragma once

#include "comm/algorithms/parts/ring_steppers.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::comm::detail {

class HomomorphicBase : public RingStepper {
 public:
  HomomorphicBase(const ReduceContext& ctx, const std::byte* input, const BlockLayout& layout)
      : ctx_(ctx), input_(input), layout_(layout) {}

  Status first(int b, size_t j, Bytes& out) override { return encode(b, j, out); }

  Status pass(int b, size_t j, std::span<const std::byte> in, Bytes& out) override {
    return add_own(b, j, in, out);
  }

  Status last(int b, size_t j, std::span<const std::byte> in, Bytes* frame,
              std::byte* values) override {
    Bytes local_frame;
    Bytes& f = frame ? *frame : local_frame;
    COMMPRESS_RETURN_IF_ERROR(add_own(b, j, in, f));
    return values ? ctx_.wire.decode(f, values, elems(b, j)) : Status{};
  }

 protected:
  // out = received partial + this rank's contribution to chunk j of block b.
  virtual Status add_own(int b, size_t j, std::span<const std::byte> in, Bytes& out) = 0;

  size_t elems(int b, size_t j) const { return ctx_.wire.chunk_size(layout_.size(b), j); }
  const std::byte* local(int b, size_t j) const {
    return input_ + chunk_offset(ctx_.wire, layout_, b, j) * ctx_.wire.elem_size();
  }
  Status encode(int b, size_t j, Bytes& out) const {
    return ctx_.wire.encode_exact(local(b, j), elems(b, j), out);
  }

  const ReduceContext& ctx_;
  const std::byte* input_;
  const BlockLayout& layout_;
  codec::Workspace ws_;
};

}  // namespace commpress::comm::detail
