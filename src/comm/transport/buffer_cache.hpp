// Large message buffers are recycled on their thread instead of going back to malloc.
// Collectives run in loops, and memory fresh from malloc (mmap at these sizes) faults in every
// page a receive or an encoder first touches, thousands of page faults per rank for a large
// compressed allreduce; keeping its buffers and frames (kept_frames.hpp) saves them
// (docs/measured-choices.md). A freed buffer is kept for the next request of the same
// rounded size, up to kKeptBytes per thread, the oldest dropped first. That is address space:
// a buffer sized for the worst-case frame keeps resident only the pages messages touched.
#pragma once

#include <cstddef>

namespace commpress::comm::detail {

inline constexpr size_t kCachedFrom = size_t{64} << 10;  // smaller ones are malloc's business
// Per thread; a 4-rank allgather of 64 MiB per rank receives into four 64 MiB blocks.
inline constexpr size_t kKeptBytes = size_t{512} << 20;

// Storage for at least `bytes` (>= kCachedFrom), aligned for any scalar; nullptr when out of
// memory. Returned with release_cached_bytes(p, bytes) with the same `bytes`, on any thread.
void* take_cached_bytes(size_t bytes);
void release_cached_bytes(void* p, size_t bytes);

// What this thread keeps now (for tests).
size_t cached_bytes_kept();

}  // namespace commpress::comm::detail
