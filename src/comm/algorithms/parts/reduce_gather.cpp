#include "comm/algorithms/parts/reduce_gather.hpp"

#include <string>

#include "comm/algorithms/parts/ring_frame_allgather.hpp"

namespace commpress::comm::detail {

namespace {

constexpr int kTag = 0x420;

}  // namespace

Status gather_to_root(const ReduceContext& ctx, std::span<const BlockSource> blocks,
                      const OwnedBlock* own, int root, std::byte* out) {
  if (ctx.rank != root) {
    std::vector<MPI_Request> sends;
    for (const BlockSource& b : blocks) {
      if (b.owner != ctx.rank) continue;
      for (size_t j = 0; j < b.wire.num_chunks(b.n); ++j) {
        sends.push_back(MPI_REQUEST_NULL);
        COMMPRESS_RETURN_IF_ERROR(isend_message(own->chunks[j],
                                                b.wire.raw_bytes(b.wire.chunk_size(b.n, j)), root,
                                                kTag, ctx.comm, &sends.back(), ctx.traffic));
      }
    }
    return wait_all(sends);
  }
  struct Arrival {
    const BlockSource* block;
    size_t chunk;
    Buffer bytes;
    PendingExchange x;
  };
  std::vector<Arrival> arrivals;
  for (const BlockSource& b : blocks)
    if (b.owner != root)
      for (size_t j = 0; j < b.wire.num_chunks(b.n); ++j) arrivals.push_back({&b, j, {}, {}});
  for (Arrival& a : arrivals)
    COMMPRESS_RETURN_IF_ERROR(a.x.start({}, 0, MPI_PROC_NULL, a.bytes,
                                        a.block->wire.frame_capacity(
                                            a.block->wire.chunk_size(a.block->n, a.chunk)),
                                        a.block->owner, kTag, ctx.comm, ctx.traffic));
  const size_t es = ctx.wire.elem_size();
  if (own)
    for (const BlockSource& b : blocks)
      if (b.owner == root) decode_owned(ctx, *own, out + b.begin * es);
  for (Arrival& a : arrivals) {
    COMMPRESS_RETURN_IF_ERROR(a.x.finish());
    const Wire& w = a.block->wire;
    if (upstream_failed(a.bytes)) continue;
    ctx.fail(w.decode(a.bytes, out + (a.block->begin + a.chunk * w.chunk_elems()) * es,
                      w.chunk_size(a.block->n, a.chunk)),
             "block of rank " + std::to_string(a.block->owner) + " chunk " +
                 std::to_string(a.chunk) + ": ");
  }
  return {};
}

}  // namespace commpress::comm::detail
