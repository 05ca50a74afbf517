// DocRing, C-Coll's decompress-operate-compress (DOC) ring. Every hop requantizes the partial, so the
// error of a sum grows by one step bound per hop (docs/error-bounds.md).
#include <cstring>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/parts/ring_reductions.hpp"
#include "comm/algorithms/parts/ring_steppers.hpp"

namespace commpress::comm::detail {

namespace {

class DocStepper final : public RingStepper {
 public:
  DocStepper(const ReduceContext& ctx, const std::byte* input, const BlockLayout& layout)
      : ctx_(ctx), input_(input), layout_(layout), tmp_(ctx.wire.chunk_elems() * ctx.wire.elem_size()) {}

  Status first(int b, size_t j, Bytes& out) override {
    return encode(local(b, j), elems(b, j), out);
  }

  Status pass(int b, size_t j, std::span<const std::byte> in, Bytes& out) override {
    COMMPRESS_RETURN_IF_ERROR(reduce_into_tmp(b, j, in));
    return encode(tmp_.data(), elems(b, j), out);
  }

  Status last(int b, size_t j, std::span<const std::byte> in, Bytes* frame,
              std::byte* values) override {
    COMMPRESS_RETURN_IF_ERROR(reduce_into_tmp(b, j, in));
    const size_t m = elems(b, j);
    if (frame) {
      COMMPRESS_RETURN_IF_ERROR(encode(tmp_.data(), m, *frame));
      // The owner keeps what everyone else will decode, so all ranks hold the same result.
      return values ? ctx_.wire.decode(*frame, values, m) : Status{};
    }
    if (values && m) std::memcpy(values, tmp_.data(), m * ctx_.wire.elem_size());
    return {};
  }

 private:
  size_t elems(int b, size_t j) const { return ctx_.wire.chunk_size(layout_.size(b), j); }
  const std::byte* local(int b, size_t j) const {
    return input_ + chunk_offset(ctx_.wire, layout_, b, j) * ctx_.wire.elem_size();
  }
  Status encode(const void* data, size_t m, Bytes& out) const {
    return ctx_.wire.encode_exact(data, m, out);
  }
  Status reduce_into_tmp(int b, size_t j, std::span<const std::byte> in) {
    const size_t m = elems(b, j);
    COMMPRESS_RETURN_IF_ERROR(ctx_.wire.decode(in, tmp_.data(), m));
    apply_op(ctx_.op, ctx_.wire.dtype(), tmp_.data(), local(b, j), m);
    return {};
  }

  const ReduceContext& ctx_;
  const std::byte* input_;
  const BlockLayout& layout_;
  Bytes tmp_;
};

}  // namespace

std::unique_ptr<RingStepper> make_doc_stepper(const ReduceContext& ctx, const std::byte* input,
                                              const BlockLayout& layout) {
  return std::make_unique<DocStepper>(ctx, input, layout);
}

const Runner ccoll_doc_ring = ring_runner();

}  // namespace commpress::comm::detail
