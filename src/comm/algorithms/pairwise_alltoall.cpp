#include "comm/algorithms/pairwise_alltoall.hpp"

namespace commpress::comm::detail {

Status pairwise_alltoall(const Collective& c, const std::vector<Buffer>& frames,
                         const std::vector<size_t>& sent, std::byte* recv,
                         const AlltoallLayout& recv_layout, Traffic& traffic, Status& first) {
  const int p = c.size;
  const size_t elem = c.wire.elem_size();
  PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  Buffer incoming[2];
  auto decode = [&](const Buffer& block, int from, const std::function<void()>& between) {
    keep_first(first,
               c.wire.decode_block(block, recv + recv_layout.displ[size_t(from)] * elem,
                                   recv_layout.count[size_t(from)], between),
               alltoall_block_label(from));
  };
  int held_from = -1;  // the source of the block waiting in incoming[(k - 1) % 2]
  for (int k = 1; k < p; ++k) {
    const int dest = (c.rank + k) % p, src = (c.rank - k + p) % p;
    COMMPRESS_RETURN_IF_ERROR(x.start(frames[size_t(dest)], c.wire.raw_bytes(sent[size_t(dest)]),
                                      dest, incoming[k % 2],
                                      c.wire.block_capacity(recv_layout.count[size_t(src)]), src,
                                      kAlltoallTag, c.comm, traffic));
    if (held_from >= 0) decode(incoming[(k - 1) % 2], held_from, drive);
    COMMPRESS_RETURN_IF_ERROR(x.finish());
    held_from = src;
  }
  if (held_from >= 0) decode(incoming[(p - 1) % 2], held_from, {});
  return {};
}

}  // namespace commpress::comm::detail
