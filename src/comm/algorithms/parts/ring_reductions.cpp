#include "comm/algorithms/parts/ring_reductions.hpp"

#include "comm/algorithms/parts/reduce_gather.hpp"
#include "comm/algorithms/parts/ring_frame_allgather.hpp"
#include "comm/algorithms/parts/ring_reduce_scatter.hpp"
#include "comm/algorithms/parts/ring_steppers.hpp"
#include "comm/transport/kept_frames.hpp"
#include "core/assert.hpp"

namespace commpress::comm::detail {

namespace {

std::unique_ptr<RingStepper> make_stepper(const ReduceContext& ctx, Algorithm kind,
                                          const std::byte* input, const BlockLayout& layout) {
  switch (kind) {
    case Algorithm::HomomorphicRing: return make_homomorphic_stepper(ctx, input, layout);
    case Algorithm::FusedRing: return make_fused_stepper(ctx, input, layout);
    default: return make_doc_stepper(ctx, input, layout);
  }
}

}  // namespace

QuantizationCount ring_quantizations(Algorithm kind, int p, bool final_frames) {
  if (p <= 1) return {};
  // Homomorphic: every input is quantized once and only integers are added afterwards.
  if (kind != Algorithm::DocRing) return {p, p};
  // DOC: the partial is requantized at each of the p - 1 hops (+1 for the travelling copy).
  int q = p - 1 + (final_frames ? 1 : 0);
  return {q, q};
}

Status ring_reduce_scatter_values(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                                  const BlockLayout& layout, std::byte* out) {
  auto st = make_stepper(ctx, kind, input, layout);
  return ring_reduce_scatter(ctx, layout, *st, nullptr, out);
}

Status ring_owned_block(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                        const BlockLayout& layout, OwnedBlock& own) {
  own.wire = ctx.wire;
  own.begin = layout.begin(ctx.rank);
  own.n = layout.size(ctx.rank);
  auto st = make_stepper(ctx, kind, input, layout);
  return ring_reduce_scatter(ctx, layout, *st, &own.chunks, nullptr);
}

Status ring_allreduce(const ReduceContext& ctx, Algorithm kind, const std::byte* input,
                      const BlockLayout& layout, std::byte* out) {
  COMMPRESS_ASSERT(ctx.size >= 2);
  thread_local std::vector<Bytes> kept_own;
  OwnedBlock own;
  const KeptFrames kept(kept_own, own.chunks);
  COMMPRESS_RETURN_IF_ERROR(ring_owned_block(ctx, kind, input, layout, own));
  return ring_allgather(ctx, layout, own, out);
}

Status ring_run_allreduce(ReduceSession& s, Algorithm kind, const std::byte* in, std::byte* out,
                          size_t n) {
  return ring_allreduce(s.context(), kind, in, BlockLayout::even(n, s.size()), out);
}

Status ring_run_reduce_scatter(ReduceSession& s, Algorithm kind, const std::byte* in,
                               std::byte* out, size_t m) {
  return ring_reduce_scatter_values(s.context(), kind, in, BlockLayout::uniform(m, s.size()), out);
}

// Ring reduce-scatter, then every finished block's frames to the root.
Status ring_run_reduce(ReduceSession& s, Algorithm kind, const std::byte* in, std::byte* out,
                       size_t n, int root) {
  const BlockLayout layout = BlockLayout::even(n, s.size());
  auto ctx = s.context();
  OwnedBlock own;
  COMMPRESS_RETURN_IF_ERROR(ring_owned_block(ctx, kind, in, layout, own));
  std::vector<BlockSource> blocks;
  for (int b = 0; b < layout.blocks(); ++b)
    blocks.push_back({b, layout.begin(b), layout.size(b), ctx.wire});
  return gather_to_root(ctx, blocks, &own, root, out);
}

}  // namespace commpress::comm::detail
