#include "comm/algorithms/parts/ring_reduce_scatter.hpp"

#include <algorithm>
#include <string>

#include "comm/transport/kept_frames.hpp"
#include "core/assert.hpp"

namespace commpress::comm::detail {

namespace {

constexpr int kTag = 0x400;

std::string where(int step, int block, size_t chunk) {
  return "ring step " + std::to_string(step) + ", block " + std::to_string(block) + " chunk " +
         std::to_string(chunk) + ": ";
}

}  // namespace

Status ring_reduce_scatter(const ReduceContext& ctx, const BlockLayout& layout, RingStepper& st,
                           std::vector<Bytes>* own_frames, std::byte* own_values) {
  const int p = ctx.size, r = ctx.rank;
  COMMPRESS_ASSERT(p >= 2 && layout.blocks() == p);
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  const Wire& w = ctx.wire;
  auto send_block = [&](int s) { return (r - s - 1 + 2 * p) % p; };
  auto recv_block = [&](int s) { return (r - s - 2 + 2 * p) % p; };
  auto chunks = [&](int b) { return w.num_chunks(layout.size(b)); };
  auto elems = [&](int b, size_t j) { return w.chunk_size(layout.size(b), j); };
  // Exchanges at step s: enough for both directions (blocks may differ by one element).
  auto width = [&](int s) {
    return s > p - 2 ? size_t(0) : std::max(chunks(send_block(s)), chunks(recv_block(s)));
  };
  size_t most = 0;
  for (int b = 0; b < p; ++b) most = std::max(most, chunks(b));
  thread_local std::vector<Bytes> kept_partials;
  std::vector<Bytes> out;
  const KeptFrames kept(kept_partials, out);
  reset_frames(out, most);
  std::vector<Buffer> in(most);
  std::vector<PendingExchange> x(most);
  if (own_frames) reset_frames(*own_frames, chunks(r));

  auto start = [&](int s, size_t j) -> Status {
    int sb = send_block(s), rb = recv_block(s);
    bool sends = j < chunks(sb), recvs = j < chunks(rb);
    std::span<const std::byte> msg;
    if (sends) msg = out[j];
    return x[j].start(msg, sends ? w.raw_bytes(elems(sb, j)) : 0, sends ? right : MPI_PROC_NULL,
                      in[j], recvs ? w.frame_capacity(elems(rb, j)) : 0,
                      recvs ? left : MPI_PROC_NULL, kTag, ctx.comm, ctx.traffic);
  };

  // Step 0: encode chunk j + 1 while chunk j leaves.
  const int b0 = send_block(0);
  for (size_t j = 0; j < width(0); ++j) {
    if (j < chunks(b0)) {
      Status s = st.first(b0, j, out[j]);
      if (!s.ok()) out[j].clear();  // an empty message keeps the pattern
      ctx.fail(s, where(0, b0, j));
    }
    COMMPRESS_RETURN_IF_ERROR(start(0, j));
  }
  st.started();

  const size_t es = w.elem_size();
  for (int s = 0; s <= p - 2; ++s) {
    const int rb = recv_block(s);
    const bool last = s == p - 2;
    for (size_t j = 0; j < width(s); ++j) {
      COMMPRESS_RETURN_IF_ERROR(x[j].finish());
      if (j < chunks(rb) && upstream_failed(in[j])) {
        out[j].clear();
        if (last && own_frames) (*own_frames)[j].clear();
      } else if (j < chunks(rb)) {
        Status res;
        if (!last) {
          res = st.pass(rb, j, in[j], out[j]);
          if (!res.ok()) out[j].clear();
        } else {
          std::byte* values = own_values ? own_values + j * w.chunk_elems() * es : nullptr;
          res = st.last(rb, j, in[j], own_frames ? &(*own_frames)[j] : nullptr, values);
          if (!res.ok() && own_frames) (*own_frames)[j].clear();
        }
        ctx.fail(res, where(s, rb, j) + "from rank " + std::to_string(left) + ": ");
      }
      if (j < width(s + 1)) COMMPRESS_RETURN_IF_ERROR(start(s + 1, j));
    }
    for (size_t j = width(s); j < width(s + 1); ++j) COMMPRESS_RETURN_IF_ERROR(start(s + 1, j));
  }
  return {};
}

}  // namespace commpress::comm::detail
