#include "comm/detail/ring_collectives.hpp"

#include "comm/detail/kept_frames.hpp"
#include "comm/detail/ring_allgather.hpp"
#include "comm/detail/ring_reduce_scatter.hpp"
#include "comm/detail/ring_steppers.hpp"
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

bool is_ring(Algorithm a) {
  return a == Algorithm::DocRing || a == Algorithm::HomomorphicRing || a == Algorithm::FusedRing;
}

bool is_homomorphic(Algorithm a) {
  return a == Algorithm::HomomorphicRing || a == Algorithm::FusedRing ||
         a == Algorithm::HomomorphicRecursiveDoubling;
}

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

}  // namespace commpress::comm::detail
