// allgather (C-Coll): each rank compresses its own block once; the frames then circulate
// unchanged and every rank decodes all p blocks, its own included, so every rank ends with
// the very same array (each block within the one compression's bound of its owner's data).
//   Ring: p-1 steps; at step s a rank passes the block it received at step s-1 to its right
//     neighbour, and decodes that block while the next one arrives.
//   RecursiveDoubling: ceil(log2 p) steps of the dissemination (Bruck) pattern, correct for
//     any p: at distance d = 1, 2, 4, ... a rank sends the first min(d, p-d) blocks it holds
//     (blocks rank, rank+1, ... mod p, back to back) to rank-d and appends those of rank+d.
#include <algorithm>
#include <cstring>
#include <functional>

#include "comm/algorithms/shared_window.hpp"
#include "comm/detail/choose.hpp"
#include "comm/detail/codec_threads.hpp"
#include "comm/detail/collective.hpp"
#include "comm/detail/mpi_dtype.hpp"
#include "comm/detail/private_comm.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::Buffer;

constexpr int kTag = 0x200;

std::string block_label(int owner) { return "block of rank " + std::to_string(owner) + ": "; }

Status ring(const detail::Collective& c, Buffer mine, std::byte* recv, size_t n,
            detail::Traffic& traffic, Status& first) {
  const int p = c.size, right = (c.rank + 1) % p, left = (c.rank + p - 1) % p;
  const size_t stride = n * c.wire.elem_size();
  std::vector<Buffer> blocks(p);
  blocks[c.rank] = std::move(mine);
  detail::PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  auto decode = [&](int b, const std::function<void()>& between) {
    detail::keep_first(first, c.wire.decode_block(blocks[b], recv + b * stride, n, between),
                       block_label(b));
  };
  for (int s = 0; s + 1 < p; ++s) {
    int out = (c.rank - s + p) % p, in = (c.rank - s - 1 + p) % p;
    COMMPRESS_RETURN_IF_ERROR(x.start(blocks[out], c.wire.raw_bytes(n), right, blocks[in],
                                      c.wire.block_capacity(n), left, kTag, c.comm, traffic));
    decode(out, drive);  // received last step (or our own): decoded while the next block moves
    COMMPRESS_RETURN_IF_ERROR(x.finish());
  }
  decode((c.rank + 1) % p, {});  // the last arrival (our own block when p == 1)
  return {};
}

Status bruck(const detail::Collective& c, Buffer mine, std::byte* recv, size_t n,
             detail::Traffic& traffic, Status& first) {
  const int p = c.size;
  const size_t stride = n * c.wire.elem_size();
  Buffer held = std::move(mine);      // blocks rank, rank+1, ... (mod p), back to back
  std::vector<size_t> ends{held.size()};  // held block i spans [ends[i-1], ends[i])
  size_t decoded = 0;
  detail::PendingExchange x;
  auto drive = [&x] { (void)x.progress(); };  // an MPI error resurfaces from x.finish()
  auto decode_held = [&](size_t upto, const std::function<void()>& between) {
    for (; decoded < upto; ++decoded) {
      size_t begin = decoded ? ends[decoded - 1] : 0;
      int owner = int((c.rank + decoded) % p);
      std::span<const std::byte> block(held.data() + begin, ends[decoded] - begin);
      detail::keep_first(first, c.wire.decode_block(block, recv + owner * stride, n, between),
                         block_label(owner));
    }
  };
  Buffer incoming;
  for (int d = 1; d < p; d *= 2) {
    const int cnt = std::min(d, p - d);
    COMMPRESS_RETURN_IF_ERROR(x.start(std::span<const std::byte>(held.data(), ends[cnt - 1]),
                                      c.wire.raw_bytes(n) * cnt, (c.rank - d + p) % p, incoming,
                                      c.wire.block_capacity(n) * cnt, (c.rank + d) % p, kTag,
                                      c.comm, traffic));
    decode_held(ends.size(), drive);  // what we already hold decodes while the exchange runs
    COMMPRESS_RETURN_IF_ERROR(x.finish());
    auto split = c.wire.split_blocks(incoming, n, cnt);
    detail::keep_first(first, split.status(),
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

Status compressed(const detail::Collective& c, const void* own, std::byte* recv, size_t n,
                  detail::Traffic& traffic) {
  Status first;
  Buffer mine;
  detail::keep_first(first, c.wire.encode_block(own, n, mine), "own block: ");
  Status st = c.algorithm == Algorithm::Ring ? ring(c, std::move(mine), recv, n, traffic, first)
                                             : bruck(c, std::move(mine), recv, n, traffic, first);
  return st.ok() ? first : st;
}

Status via_mpi(const detail::Collective& c, const void* send, void* recv, size_t n,
               detail::Traffic& traffic) {
  MPI_Datatype t = detail::mpi_datatype(c.wire.dtype());
  COMMPRESS_MPI(MPI_Allgather(send == recv ? MPI_IN_PLACE : send, int(n), t, recv, int(n), t,
                              c.comm));
  // MPI's own traffic is not observable: count what a ring sends uncompressed.
  uint64_t bytes = c.wire.raw_bytes(n) * uint64_t(c.size - 1);
  traffic.add(bytes, bytes);
  return {};
}

size_t largest_message(const detail::Collective& c, size_t n) {
  if (c.algorithm != Algorithm::RecursiveDoubling) return c.wire.block_capacity(n);
  int most = 0;
  for (int d = 1; d < c.size; d *= 2) most = std::max(most, std::min(d, c.size - d));
  return c.wire.block_capacity(n) * size_t(most);
}

}  // namespace

Result<Report> allgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                         MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_allgather(opts, send, recv, count_per_rank, dtype, comm);
  const size_t n = count_per_rank;
  auto c = detail::begin_collective(
      comm, {model::Operation::allgather, "allgather", n, dtype, 0, false, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (n > 0 && (send == nullptr || recv == nullptr))
          return {ErrorCode::invalid_argument, "allgather: null buffer with a non-zero count"};
        return detail::check_message_size(largest_message(c, n), "allgather");
      });
  if (!c.ok()) return c.status();
  auto* out = static_cast<std::byte*>(recv);
  // Passing recv as send means MPI_IN_PLACE: this rank's block already sits in recv.
  const void* own = send == recv ? out + c->rank * n * c->wire.elem_size() : send;
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, own, n));
  detail::Traffic traffic;
  Status local;
  if (c->algorithm == Algorithm::Mpi) {
    local = via_mpi(*c, send, recv, n, traffic);
  } else if (c->algorithm == Algorithm::SharedWindow) {
    local = detail::shared_window_allgather(c->comm, c->wire.elem_size(),
                                            static_cast<const std::byte*>(own), out, n);
    // Each rank writes its block into shared memory once.
    traffic.add(c->wire.raw_bytes(n), c->wire.raw_bytes(n));
  } else {
    local = compressed(*c, own, out, n, traffic);
  }
  return detail::with_prediction(detail::end_collective(*c, local, traffic), choice);
}

}  // namespace commpress::comm
