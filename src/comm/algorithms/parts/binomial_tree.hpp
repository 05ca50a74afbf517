// The binomial tree over a communicator rooted at any rank, in ranks relative to the root
// (vrank = (rank - root) mod p). Vrank v's subtree is the contiguous vrank range
// [v, v + subtree_size(v)), which is what lets scatter/gather move a subtree's blocks as one
// contiguous run of frames.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace commpress::comm::detail {

class BinomialTree {
 public:
  BinomialTree(int rank, int size, int root)
      : size_(size), root_(root), vrank_((rank - root + size) % size) {}

  int vrank() const { return vrank_; }
  int rank_of(int vrank) const { return (vrank + root_) % size_; }

  // The parent's vrank, or -1 at the root.
  int parent() const { return vrank_ == 0 ? -1 : vrank_ - lowbit(vrank_); }
  int parent_rank() const { return vrank_ == 0 ? MPI_PROC_NULL : rank_of(parent()); }

  // Children's vranks, largest subtree first (the order a tree broadcast sends in).
  std::vector<int> children() const {
    std::vector<int> out;
    for (int m = vrank_ == 0 ? top_mask() : lowbit(vrank_) / 2; m > 0; m >>= 1)
      if (vrank_ + m < size_) out.push_back(vrank_ + m);
    return out;
  }
  std::vector<int> children_ranks() const {
    std::vector<int> out;
    for (int c : children()) out.push_back(rank_of(c));
    return out;
  }

  // Ranks in the subtree of vrank v (v itself included).
  int subtree_size(int v) const {
    return v == 0 ? size_ : std::min(lowbit(v), size_ - v);
  }

 private:
  static int lowbit(int v) { return v & -v; }
  // The largest power of two below size (the root's first child's offset).
  int top_mask() const {
    int m = 1;
    while (m * 2 < size_) m *= 2;
    return size_ > 1 ? m : 0;
  }
  int size_, root_, vrank_;
};

}  // namespace commpress::comm::detail
