// The homomorphic rings. Both quantize every input exactly once (with the frame's bound) and
// then only add quantized integers, so a sum's error is p step bounds whatever the hop count.
//   homomorphic: each rank compresses all its blocks once (all but the first while the
//     first one is on its way), then combine(own frame, received frame) at every hop;
//   fused: combine_raw(local chunk, received frame) at every hop, quantizing the local chunk
//     inside the combine, so no block is ever compressed on its own except the first.
#include <cstring>

#include "comm/detail/ring_steppers.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::comm::detail {

namespace {

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

class FusedStepper final : public HomomorphicBase {
 public:
  using HomomorphicBase::HomomorphicBase;

 protected:
  Status add_own(int b, size_t j, std::span<const std::byte> in, Bytes& out) override {
    return codec::combine_raw(local(b, j), elems(b, j), ctx_.wire.dtype(), in,
                              codec::CombineOp::sum, out, ws_);
  }
};

}  // namespace

std::unique_ptr<RingStepper> make_homomorphic_stepper(const ReduceContext& ctx,
                                                      const std::byte* input,
                                                      const BlockLayout& layout) {
  return std::make_unique<HomomorphicStepper>(ctx, input, layout);
}

std::unique_ptr<RingStepper> make_fused_stepper(const ReduceContext& ctx, const std::byte* input,
                                                const BlockLayout& layout) {
  return std::make_unique<FusedStepper>(ctx, input, layout);
}

}  // namespace commpress::comm::detail
