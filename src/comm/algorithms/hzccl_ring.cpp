// HomomorphicRing, hZCCL's ring: each rank compresses all its blocks once (all but the first
// while the first one is on its way), then combine(own frame, received frame) at every hop.
#include "comm/algorithms/parts/homomorphic_stepper.hpp"
#include "comm/algorithms/parts/ring_reductions.hpp"

namespace commpress::comm::detail {

namespace {

class HomomorphicStepper final : public HomomorphicBase {
 public:
  using HomomorphicBase::HomomorphicBase;

  Status first(int b, size_t j, Bytes& out) override {
    first_block_ = b;
    return encode(b, j, out);
  }

  // Compress every other block once while the first one travels.
  void started() override {
    const int p = layout_.blocks();
    frames_.assign(p, {});
    status_.assign(p, {});
    for (int b = 0; b < p; ++b) {
      if (b == first_block_) continue;
      const size_t chunks = ctx_.wire.num_chunks(layout_.size(b));
      frames_[b].resize(chunks);
      status_[b].resize(chunks);
      for (size_t j = 0; j < chunks; ++j) status_[b][j] = encode(b, j, frames_[b][j]);
    }
  }

 protected:
  Status add_own(int b, size_t j, std::span<const std::byte> in, Bytes& out) override {
    COMMPRESS_RETURN_IF_ERROR(status_[b][j]);
    Status st = codec::combine(frames_[b][j], in, codec::CombineOp::sum, out, ws_);
    Bytes().swap(frames_[b][j]);  // each own frame is combined exactly once
    return st;
  }

 private:
  int first_block_ = -1;
  std::vector<std::vector<Bytes>> frames_;
  std::vector<std::vector<Status>> status_;
};

}  // namespace

std::unique_ptr<RingStepper> make_homomorphic_stepper(const ReduceContext& ctx,
                                                      const std::byte* input,
                                                      const BlockLayout& layout) {
  return std::make_unique<HomomorphicStepper>(ctx, input, layout);
}

const Runner hzccl_ring = ring_runner();

}  // namespace commpress::comm::detail
