#include "comm/algorithms/parts/ring_frame_allgather.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace commpress::comm::detail {

namespace {

constexpr int kTag = 0x410;

std::string where(int block, size_t chunk) {
  return "allgather, block " + std::to_string(block) + " chunk " + std::to_string(chunk) + ": ";
}

}  // namespace

void decode_owned(const ReduceContext& ctx, const OwnedBlock& own, std::byte* out) {
  const Wire& w = own.wire;
  for (size_t j = 0; j < own.chunks.size(); ++j)
    if (!upstream_failed(own.chunks[j]))
      ctx.fail(w.decode(own.chunks[j], out + j * w.chunk_elems() * w.elem_size(),
                      w.chunk_size(own.n, j)),
             "own block chunk " + std::to_string(j) + ": ");
}

Status ring_allgather(const ReduceContext& ctx, const BlockLayout& layout, const OwnedBlock& own,
                      std::byte* out) {
  const int p = ctx.size, r = ctx.rank;
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  const Wire& w = own.wire;
  const size_t es = w.elem_size();
  auto send_block = [&](int s) { return (r - s + p) % p; };
  auto recv_block = [&](int s) { return (r - s - 1 + p) % p; };
  auto chunks = [&](int b) { return w.num_chunks(layout.size(b)); };
  auto elems = [&](int b, size_t j) { return w.chunk_size(layout.size(b), j); };
  auto width = [&](int s) {
    return s > p - 2 ? size_t(0) : std::max(chunks(send_block(s)), chunks(recv_block(s)));
  };
  size_t most = 0;
  for (int b = 0; b < p; ++b) most = std::max(most, chunks(b));
  // Step s receives into buf[s & 1] and forwards what step s - 1 received.
  std::array<std::vector<Buffer>, 2> buf = {std::vector<Buffer>(most), std::vector<Buffer>(most)};
  std::vector<PendingExchange> x(most);

  auto start = [&](int s, size_t j) -> Status {
    int sb = send_block(s), rb = recv_block(s);
    bool sends = j < chunks(sb), recvs = j < chunks(rb);
    std::span<const std::byte> msg;
    if (sends) msg = s == 0 ? std::span<const std::byte>(own.chunks[j]) : buf[(s - 1) & 1][j];
    return x[j].start(msg, sends ? w.raw_bytes(elems(sb, j)) : 0, sends ? right : MPI_PROC_NULL,
                      buf[s & 1][j], recvs ? w.frame_capacity(elems(rb, j)) : 0,
                      recvs ? left : MPI_PROC_NULL, kTag, ctx.comm, ctx.traffic);
  };

  for (size_t j = 0; j < width(0); ++j) COMMPRESS_RETURN_IF_ERROR(start(0, j));
  decode_owned(ctx, own, out + layout.begin(r) * es);  // while the first chunks move
  for (int s = 0; s <= p - 2; ++s) {
    const int rb = recv_block(s);
    for (size_t j = 0; j < width(s); ++j) {
      COMMPRESS_RETURN_IF_ERROR(x[j].finish());
      if (j < width(s + 1)) COMMPRESS_RETURN_IF_ERROR(start(s + 1, j));
      if (j < chunks(rb) && !upstream_failed(buf[s & 1][j]))
        ctx.fail(w.decode(buf[s & 1][j], out + (layout.begin(rb) + j * w.chunk_elems()) * es,
                          elems(rb, j)),
                 where(rb, j) + "from rank " + std::to_string(left) + ": ");
    }
    for (size_t j = width(s); j < width(s + 1); ++j) COMMPRESS_RETURN_IF_ERROR(start(s + 1, j));
  }
  return {};
}

}  // namespace commpress::comm::detail
