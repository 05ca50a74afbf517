#include "comm/algorithms/ccoll_ring_allgather.hpp"

#include <functional>
#include <vector>

namespace commpress::comm::detail {

Status ccoll_ring_allgather(const Collective& c, Buffer mine, std::byte* recv, size_t n,
                            Traffic& traffic, Status& first) {
  const int p = c.size, right = (c.rank + 1) % p, left = (c.rank + p - 1) % p;
  const size_t stride = n * c.wire.elem_size();
  std::vector<Buffer> blocks(p);
  blocks[c.rank] = std::move(mine);
  PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  auto decode = [&](int b, const std::function<void()>& between) {
    keep_first(first, c.wire.decode_block(blocks[b], recv + b * stride, n, between),
               allgather_block_label(b));
  };
  for (int s = 0; s + 1 < p; ++s) {
    int out = (c.rank - s + p) % p, in = (c.rank - s - 1 + p) % p;
    COMMPRESS_RETURN_IF_ERROR(x.start(blocks[out], c.wire.raw_bytes(n), right, blocks[in],
                                      c.wire.block_capacity(n), left, kAllgatherTag, c.comm,
                                      traffic));
    decode(out, drive);  // received last step (or our own): decoded while the next block moves
    COMMPRESS_RETURN_IF_ERROR(x.finish());
  }
  decode((c.rank + 1) % p, {});  // the last arrival (our own block when p == 1)
  return {};
}

}  // namespace commpress::comm::detail
