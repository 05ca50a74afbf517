#include "comm/detail/shared_window.hpp"

#include <algorithm>
#include <cstring>

#include "comm/detail/private_comm.hpp"
#include "comm/detail/reduce_ops.hpp"
#include "comm/detail/shared_segment.hpp"

namespace commpress::comm::detail {

namespace {

// Slots start on cache lines (and their own pages for large vectors), so two ranks writing
// neighbouring slots never share a line.
size_t padded(size_t bytes) {
  return (bytes + 4095) / 4096 * 4096;
}

// The allreduce's layout follows the segment (the same size on every rank): slots 0..p-1
// hold the inputs, slot p the result.
size_t slot_bytes(const SharedSegment& seg, int p) {
  return seg.size() / size_t(p + 1) / 4096 * 4096;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

std::byte* shared_window_input_slot(MPI_Comm comm, size_t bytes) {
  const SharedSegment* seg = SharedSegment::find(comm, SegmentUse::allreduce);
  int p = 1;
  MPI_Comm_size(comm, &p);
  if (!seg || bytes == 0 || slot_bytes(*seg, p) < bytes) return nullptr;
  return seg->data() + size_t(rank_of(comm)) * slot_bytes(*seg, p);
}

Status shared_window_allreduce(MPI_Comm comm, Op op, Dtype dtype, const std::byte* in,
                               std::byte* out, size_t n) {
  int rank = 0, p = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &p));
  const size_t es = codec::dtype_size(dtype);
  auto seg = SharedSegment::of(comm, SegmentUse::allreduce, padded(n * es) * size_t(p + 1));
  if (!seg.ok()) return seg.status();
  std::byte* base = (*seg)->data();
  const size_t slot = slot_bytes(**seg, p);
  auto at = [&](int q, size_t i) { return base + size_t(q) * slot + i * es; };
  if (n && in != at(rank, 0)) std::memcpy(at(rank, 0), in, n * es);
  COMMPRESS_RETURN_IF_ERROR(segment_barrier(comm));
  // This rank's share: whole cache lines, the last rank taking what is left.
  const size_t per_line = std::max<size_t>(1, 64 / es);
  const size_t share = (n + size_t(p) - 1) / size_t(p);
  const size_t step = (share + per_line - 1) / per_line * per_line;
  const size_t lo = std::min(n, size_t(rank) * step), hi = std::min(n, lo + step);
  if (hi > lo) {
    std::byte* result = at(p, lo);
    if (p == 1)
      std::memcpy(result, at(0, lo), (hi - lo) * es);
    else
      apply_op_into(op, dtype, result, at(0, lo), at(1, lo), hi - lo);
    for (int q = 2; q < p; ++q) apply_op(op, dtype, result, at(q, lo), hi - lo);
  }
  COMMPRESS_RETURN_IF_ERROR(segment_barrier(comm));
  if (n) std::memcpy(out, at(p, 0), n * es);
  return {};
}

Status shared_window_allgather(MPI_Comm comm, size_t elem_size, const std::byte* own,
                               std::byte* out, size_t n) {
  int rank = 0, p = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &p));
  const size_t block = n * elem_size;
  auto seg = SharedSegment::of(comm, SegmentUse::allgather, block * size_t(p));
  if (!seg.ok()) return seg.status();
  std::byte* all = (*seg)->data();
  if (block) std::memcpy(all + size_t(rank) * block, own, block);
  COMMPRESS_RETURN_IF_ERROR(segment_barrier(comm));
  if (block) std::memcpy(out, all, block * size_t(p));
  return {};
}

Status shared_window_bcast(MPI_Comm comm, int root, std::byte* buf, size_t bytes) {
  auto seg = SharedSegment::of(comm, SegmentUse::bcast, bytes);
  if (!seg.ok()) return seg.status();
  const bool is_root = rank_of(comm) == root;
  if (is_root && bytes) std::memcpy((*seg)->data(), buf, bytes);
  COMMPRESS_RETURN_IF_ERROR(segment_barrier(comm));
  if (!is_root && bytes) std::memcpy(buf, (*seg)->data(), bytes);
  return {};
}

}  // namespace commpress::comm::detail
