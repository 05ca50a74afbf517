#include "comm/algorithms/bruck_alltoall.hpp"

#include <algorithm>

#include "model/bruck_blocks.hpp"

namespace commpress::comm::detail {

Status bruck_alltoall(const Collective& c, std::vector<Buffer> frames, std::byte* recv, size_t n,
                      Traffic& traffic, Status& first) {
  const int p = c.size;
  const size_t stride = n * c.wire.elem_size();
  std::vector<Buffer> slot(static_cast<size_t>(p));
  for (int j = 1; j < p; ++j) slot[size_t(j)] = std::move(frames[size_t((c.rank + j) % p)]);
  PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  int decoded = 1;  // slots below this are in recv
  // Slots below `upto` travel no more: decode them (while an exchange runs, driving it).
  auto decode_upto = [&](int upto, const std::function<void()>& between) {
    for (; decoded < std::min(upto, p); ++decoded) {
      const int from = (c.rank - decoded + p) % p;
      keep_first(first, c.wire.decode_block(slot[size_t(decoded)], recv + size_t(from) * stride,
                                            n, between),
                 alltoall_block_label(from));
      Buffer().swap(slot[size_t(decoded)]);
    }
  };
  Buffer out, incoming;
  for (int d = 1; d < p; d *= 2) {
    const int cnt = model::bruck_blocks(p, d);
    out.clear();
    for (int j = d; j < p; ++j)
      if (j & d) out.insert(out.end(), slot[size_t(j)].begin(), slot[size_t(j)].end());
    const int dest = (c.rank + d) % p, src = (c.rank - d + p) % p;
    COMMPRESS_RETURN_IF_ERROR(x.start(out, c.wire.raw_bytes(n) * uint64_t(cnt), dest, incoming,
                                      c.wire.block_capacity(n) * size_t(cnt), src, kAlltoallTag,
                                      c.comm, traffic));
    decode_upto(d, drive);  // slots below d have no bit >= d: they are final
    COMMPRESS_RETURN_IF_ERROR(x.finish());
    auto split = c.wire.split_blocks(incoming, n, size_t(cnt));
    keep_first(first, split.status(), "blocks from rank " + std::to_string(src) + ": ");
    int i = 0;
    for (int j = d; j < p; ++j) {
      if (!(j & d)) continue;
      // Unsplittable bytes leave the slots empty: they decode as errors at the end, and the
      // pattern goes on.
      if (split.ok())
        slot[size_t(j)].assign(incoming.begin() + std::ptrdiff_t((*split)[size_t(i)]),
                               incoming.begin() + std::ptrdiff_t((*split)[size_t(i) + 1]));
      else
        slot[size_t(j)].clear();
      ++i;
    }
  }
  decode_upto(p, {});
  return {};
}

size_t bruck_alltoall_largest_message(const Collective& c, size_t n) {
  int most = 0;
  for (int d = 1; d < c.size; d *= 2) most = std::max(most, model::bruck_blocks(c.size, d));
  return c.wire.block_capacity(n) * size_t(most);
}

}  // namespace commpress::comm::detail
