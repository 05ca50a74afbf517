// FusedRing, HomComp_F's ring: combine_raw(local chunk, received frame) at every hop,
// quantizing the local chunk inside the combine, so no block is ever compressed on its own
// except the first.
#include "comm/algorithms/parts/homomorphic_stepper.hpp"
#include "comm/algorithms/parts/ring_reductions.hpp"
#include "comm/transport/smpi_work_reuse.hpp"

namespace commpress::comm::detail {

namespace {

class FusedStepper final : public HomomorphicBase {
 public:
  using HomomorphicBase::HomomorphicBase;

 protected:
  Status add_own(int b, size_t j, std::span<const std::byte> in, Bytes& out) override {
    return reused_frame(ctx_.wire, "combine_raw_sum", local(b, j), elems(b, j), in, out, [&] {
      return codec::combine_raw(local(b, j), elems(b, j), ctx_.wire.dtype(), in,
                                codec::CombineOp::sum, out, ws_);
    });
  }
};

}  // namespace

std::unique_ptr<RingStepper> make_fused_stepper(const ReduceContext& ctx, const std::byte* input,
                                                const BlockLayout& layout) {
  return std::make_unique<FusedStepper>(ctx, input, layout);
}

const Runner homcomp_fused_ring = ring_runner();

}  // namespace commpress::comm::detail
