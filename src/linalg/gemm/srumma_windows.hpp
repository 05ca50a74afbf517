// The memory SRUMMA reads its pieces from: a shared-memory domain of ranks (a real node, or
// pretend nodes of N consecutive ranks for tests and benchmarks) whose blocks are read in
// place from an MPI_Win_allocate_shared window, and passive-target RMA windows over the
// caller's own blocks for everything else.
//
// Every open and close here is collective (over the domain or the grid's communicator), so
// each rank opens and closes the same objects in the same order, owning data or not. MPI's
// default error handler aborts on a failed window call, so a rank never returns from the
// middle of this sequence while the others wait.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "commpress/status.hpp"
#include "linalg/gemm/srumma_tasks.hpp"

namespace commpress::linalg::detail {

// A rank's local block of one operand: its shape and its caller's leading dimension.
struct SrummaBlock {
  int64_t rows = 0, cols = 0, ld = 1;
  int64_t elements() const { return rows * cols; }
  // Elements the caller's storage must span (the last column needs only `rows`).
  int64_t span() const { return rows > 0 && cols > 0 ? ld * (cols - 1) + rows : 0; }
};

// The ranks of comm sharing memory with this one: MPI_COMM_TYPE_SHARED, further split into
// groups of `pretend` consecutive ranks when pretend > 0.
class SrummaDomain {
 public:
  SrummaDomain() = default;
  SrummaDomain(const SrummaDomain&) = delete;
  SrummaDomain& operator=(const SrummaDomain&) = delete;
  ~SrummaDomain();

  Status open(MPI_Comm comm, int pretend);  // collective over comm
  MPI_Comm comm() const { return node_; }
  int size() const { return size_; }
  // The rank of comm's rank r in the domain, or -1 when r is elsewhere.
  int node_rank(int r) const { return node_rank_[size_t(r)]; }

 private:
  MPI_Comm node_ = MPI_COMM_NULL;
  int size_ = 1;
  std::vector<int> node_rank_;
};

// Packed copies of every domain rank's A and B blocks in one shared window, read in place by
// the domain's ranks (ld = max(1, rows) in the copy).
template <class T>
class SrummaSharedBlocks {
 public:
  // Collective over the domain; copies this rank's blocks (a, b with the shapes given) and
  // makes every rank's copy visible before returning.
  Status open(const SrummaDomain& d, const T* a, const SrummaBlock& my_a, const T* b,
              const SrummaBlock& my_b);
  Status close();  // collective over the domain
  bool is_open() const { return win_ != MPI_WIN_NULL; }
  // Start of grid rank r's packed A / B copy (r must be in the domain; shapes_a holds every
  // grid rank's A block, since B's copy follows A's).
  const T* a_of(int r) const { return base_[size_t(node_rank(r))]; }
  const T* b_of(int r, const std::vector<SrummaBlock>& shapes_a) const {
    return base_[size_t(node_rank(r))] + shapes_a[size_t(r)].elements();
  }
  uint64_t bytes() const { return bytes_; }  // this rank's share of the window

 private:
  int node_rank(int r) const { return domain_->node_rank(r); }
  const SrummaDomain* domain_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<const T*> base_;  // by domain rank
  uint64_t bytes_ = 0;
};

// A passive-target window over one operand's caller block (no copy), locked for every target
// from open to close.
template <class T>
class SrummaRmaWindow {
 public:
  Status open(MPI_Comm comm, const T* data, const SrummaBlock& mine);  // collective
  // Starts fetching piece p of its owner's block (owner's ld given) into dest, packed with
  // ld = p.rows.
  Status rget(const SrummaPiece& p, int64_t owner_ld, T* dest, MPI_Request* req) const;
  Status close(MPI_Comm comm);  // collective
  bool is_open() const { return win_ != MPI_WIN_NULL; }

 private:
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace commpress::linalg::detail
