#include "comm/algorithms/bruck_allgather.hpp"

#include <algorithm>
#include <functional>
#include <vector>

namespace commpress::comm::detail {

Status bruck_allgather(const Collective& c, Buffer mine, std::byte* recv, size_t n,
                       Traffic& traffic, Status& first) {
  const int p = c.size;
  const size_t stride = n * c.wire.elem_size();
  Buffer held = std::move(mine);          // blocks rank, rank+1, ... (mod p), back to back
  std::vector<size_t> ends{held.size()};  // held block i spans [ends[i-1], ends[i])
  size_t decoded = 0;
  PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  auto decode_held = [&](size_t upto, const std::function<void()>& between) {
    for (; decoded < upto; ++decoded) {
      size_t begin = decoded ? ends[decoded - 1] : 0;
      int owner = int((c.rank + decoded) % p);
      std::span<const std::byte> block(held.data() + begin, ends[decoded] - begin);
      keep_first(first, c.wire.decode_block(block, recv + owner * stride, n, between),
                 allgather_block_label(owner));
    }
  };
  Buffer incoming;
  for (int d = 1; d < p; d *= 2) {
    const int cnt = std::min(d, p - d);
    COMMPRESS_RETURN_IF_ERROR(x.start(std::span<const std::byte>(held.data(), ends[cnt - 1]),
                                      c.wire.raw_bytes(n) * cnt, (c.rank - d + p) % p, incoming,
                                      c.wire.block_capacity(n) * cnt, (c.rank + d) % p,
                                      kAllgatherTag, c.comm, traffic));
    decode_held(ends.size(), drive);  // what we already hold decodes while the exchange runs
    COMMPRESS_RETURN_IF_ERROR(x.finish());
    auto split = c.wire.split_blocks(incoming, n, cnt);
    keep_first(first, split.status(),
               "blocks from rank " + std::to_string((c.rank + d) % p) + ": ");
    size_t base = held.size();
    held.insert(held.end(), incoming.begin(), incoming.end());
    // Unsplittable bytes still travel on (as one lump) so the pattern stays intact; the
    // blocks they should have held decode as empty and fail.
    for (int i = 1; i <= cnt; ++i)
      ends.push_back(split.ok() ? base + (*split)[i] : (i == cnt ? held.size() : base));
  }
  decode_held(size_t(p), {});
  return {};
}

size_t bruck_largest_message(const Collective& c, size_t n) {
  int most = 0;
  for (int d = 1; d < c.size; d *= 2) most = std::max(most, std::min(d, c.size - d));
  return c.wire.block_capacity(n) * size_t(most);
}

}  // namespace commpress::comm::detail
