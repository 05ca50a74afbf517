#include "comm/algorithms/shared_window.hpp"

#include <algorithm>
#include <cstring>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/shared_segment.hpp"

namespace commpress::comm::detail {

namespace {

// Slots start on their own pages, so two ranks writing neighbouring slots never share a
// cache line.
size_t padded(size_t bytes) {
  return (bytes + 4095) / 4096 * 4096;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int size_of(MPI_Comm comm) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  return p;
}

// The layouts follow the segment's size, the same on every rank.
// allreduce: slots 0..p-1 hold the inputs, slot p the result.
size_t reduce_slot(const SharedSegment& seg, int p) {
  return seg.size() / size_t(p + 1) / 4096 * 4096;
}

}  // namespace

std::byte* shared_window_input_slot(MPI_Comm comm, size_t bytes) {
  const SharedSegment* seg = SharedSegment::find(comm, SegmentUse::allreduce);
  const int p = size_of(comm);
  if (!seg || bytes == 0 || reduce_slot(*seg, p) < bytes) return nullptr;
  return seg->data() + size_t(rank_of(comm)) * reduce_slot(*seg, p);
}

Status shared_window_allreduce(MPI_Comm comm, Op op, Dtype dtype, const std::byte* in,
                               std::byte* out, size_t n, bool inputs_in_slots) {
  const int rank = rank_of(comm), p = size_of(comm);
  const size_t es = codec::dtype_size(dtype);
  auto got = SharedSegment::of(comm, SegmentUse::allreduce, padded(n * es) * size_t(p + 1));
  if (!got.ok()) return got.status();
  SharedSegment& seg = **got;
  const size_t slot = reduce_slot(seg, p);
  auto at = [&](int q, size_t i) { return seg.data() + size_t(q) * slot + i * es; };
  // Line q: rank q's input is in; line p + q: rank q's share of the result is.
  if (inputs_in_slots) {
    segment_fence();
  } else {
    if (n && in != at(rank, 0)) std::memcpy(at(rank, 0), in, n * es);
    seg.mark(rank);
    for (int q = 0; q < p; ++q) seg.wait(q);
  }
  // Shares of whole cache lines, the last rank's taking what is left.
  const size_t per_line = std::max<size_t>(1, 64 / es);
  const size_t share = (n + size_t(p) - 1) / size_t(p);
  const size_t step = (share + per_line - 1) / per_line * per_line;
  auto lo = [&](int q) { return std::min(n, size_t(q) * step); };
  auto hi = [&](int q) { return std::min(n, lo(q) + step); };
  if (hi(rank) > lo(rank)) {
    const size_t i = lo(rank), len = hi(rank) - i;
    std::byte* result = at(p, i);
    if (p == 1)
      std::memcpy(result, at(0, i), len * es);
    else
      apply_op_into(op, dtype, result, at(0, i), at(1, i), len);
    for (int q = 2; q < p; ++q) apply_op(op, dtype, result, at(q, i), len);
  }
  seg.mark(p + rank);
  // Each share as soon as its owner has it, this rank's own first (still in cache).
  for (int k = 0; k < p; ++k) {
    const int q = (rank + k) % p;
    seg.wait(p + q);
    if (hi(q) > lo(q)) std::memcpy(out + lo(q) * es, at(p, lo(q)), (hi(q) - lo(q)) * es);
  }
  return {};
}

Status shared_window_allgather(MPI_Comm comm, size_t elem_size, const std::byte* own,
                               std::byte* out, size_t n) {
  const int rank = rank_of(comm), p = size_of(comm);
  const size_t block = n * elem_size;
  auto got = SharedSegment::of(comm, SegmentUse::allgather, block * size_t(p));
  if (!got.ok()) return got.status();
  SharedSegment& seg = **got;
  std::byte* all = seg.data();
  if (block) std::memcpy(all + size_t(rank) * block, own, block);
  seg.mark(rank);
  // Each block as soon as its owner has written it; this rank's from its own copy, still in
  // cache (or already in place).
  for (int k = 1; k < p; ++k) {
    const int q = (rank + k) % p;
    seg.wait(q);
    if (block) std::memcpy(out + size_t(q) * block, all + size_t(q) * block, block);
  }
  std::byte* mine = out + size_t(rank) * block;
  if (block && own != mine) std::memcpy(mine, own, block);
  return {};
}

Status shared_window_bcast(MPI_Comm comm, int root, std::byte* buf, size_t bytes) {
  auto got = SharedSegment::of(comm, SegmentUse::bcast, bytes);
  if (!got.ok()) return got.status();
  SharedSegment& seg = **got;
  if (rank_of(comm) == root) {
    if (bytes) std::memcpy(seg.data(), buf, bytes);
    seg.mark(root);
  } else {
    seg.wait(root);
    if (bytes) std::memcpy(buf, seg.data(), bytes);
  }
  return {};
}

namespace {

Status run_allreduce(ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
  const std::byte* input = s.input_slot() ? s.input_slot() : s.input_in_output() ? out : in;
  COMMPRESS_RETURN_IF_ERROR(shared_window_allreduce(s.comm(), s.op(), s.wire().dtype(), input,
                                                    out, n, s.inputs_in_slots()));
  // Each rank writes its vector into shared memory once and reads the result once.
  const uint64_t bytes = s.wire().raw_bytes(n);
  s.traffic().add(bytes, bytes);
  return {};
}

}  // namespace

// allgather and bcast run it from their verbs (allgather.cpp, bcast.cpp).
const Runner shared_window{run_allreduce, nullptr, nullptr, nullptr, /*one_rank=*/true};

}  // namespace commpress::comm::detail
