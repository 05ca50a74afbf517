// One block of shared memory per communicator whose ranks all run on one node, mapped by
// every rank and kept with the communicator (freed with it), for the algorithms that move
// data through memory instead of messages (SharedWindow). POSIX shared memory rather than
// an MPI window: freeing a window is collective, and the communicator's attribute is
// deleted wherever MPI chooses, MPI_Finalize included; unmapping is local.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "commpress/status.hpp"

namespace commpress::comm::detail {

// Each operation has a segment of its own, so one operation's writes never meet another's
// reads: allreduce writes its input slot before the argument agreement (shared_window.hpp).
enum class SegmentUse { allreduce = 0, allgather = 1, bcast = 2 };

class SharedSegment {
 public:
  SharedSegment() = default;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  ~SharedSegment();

  // Collective over comm, whose ranks must share one node and ask for the same size (both
  // agreed beforehand): comm's segment, grown to at least `bytes` when smaller. The pages
  // are reserved up front, so a full /dev/shm fails here, on every rank alike, instead of
  // faulting later. Callers may reuse it only after a synchronization of all ranks (the
  // next call's argument agreement): a peer may still be reading the last call's data.
  static Result<SharedSegment*> of(MPI_Comm comm, SegmentUse use, size_t bytes);
  // comm's segment for `use` as it stands (null if none is mapped); local, no MPI call.
  static SharedSegment* find(MPI_Comm comm, SegmentUse use);

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }

  // Readiness flags, kMarkLines per rank of comm, each on a cache line of its own ahead of
  // data(). Every call of `of` starts a new round (all ranks make the same calls);
  // mark(line) says "ready in this round" (what this rank wrote before it is visible to
  // whoever waits for it), wait(line) returns once that line is marked in this round,
  // yielding the core while it waits (ranks may outnumber cores). Lines reset with the
  // mapping, so a grown segment starts afresh on every rank alike.
  static constexpr int kMarkLines = 2;
  void mark(int line);
  void wait(int line) const;

 private:
  Status map(MPI_Comm comm, size_t bytes);
  void unmap();
  void next_round() { ++round_; }
  uint64_t* flag(int line) const;

  std::byte* base_ = nullptr;  // the mapping: the flags' lines, then data_
  size_t mapped_ = 0;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  uint64_t round_ = 0;
};
// Tests: the next segment this rank creates (rank 0) or maps (any rank) fails with errno
// `error` (0: no failure), as a full /dev/shm or a refused mapping would.
void fail_next_segment_for_testing(int error);

// A full fence, where another collective (the argument agreement) synchronizes the ranks in
// place of the flags: after writing a slot before it, and after it before reading the
// others' slots.
void segment_fence();

}  // namespace commpress::comm::detail
