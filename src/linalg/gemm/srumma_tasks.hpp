// SRUMMA's task list: the products one rank performs to compute its own block of C
// (owner computes). Each task multiplies one rectangular piece of stored A by one of stored
// B, each held by a single owner rank, into a sub-block of this rank's C. Pure arithmetic on
// the block layout: no MPI, so the list is the same wherever it is computed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

// A rectangle of an owner's local block (column-major), in the owner's local coordinates.
struct SrummaPiece {
  int owner = 0;  // rank in the grid's communicator
  int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  int64_t elements() const { return rows * cols; }
};

struct SrummaTask {
  SrummaPiece a, b;            // stored pieces: op() of them is mm x kk and kk x nn
  int64_t c_row0 = 0, c_col0 = 0;  // sub-block of this rank's local C
  int64_t mm = 0, nn = 0, kk = 0;
  int c_part = 0;   // which C sub-block (beta applies to the first task of each)
  int k_index = 0;  // position of the k segment in the k decomposition
};

struct SrummaTaskList {
  std::vector<SrummaTask> tasks;
  int c_parts = 0;     // C sub-blocks of this rank
  int k_segments = 0;  // segments of the k decomposition
};

// The tasks of grid position (row, col) for C = op(A) op(B) with op(A) m x k, op(B) k x n,
// block-distributed over the rows x cols grid. The k decomposition is the union of the
// boundaries of A's and B's k splits (ceil splits, over different grid dimensions for the two
// operands), and C's rows (columns) are cut at the boundaries of A's m (B's n) split, so each
// task's pieces each come from one owner. Tasks come k segment by k segment, starting at
// segment (row + col) mod K (the diagonal shift, so ranks do not all fetch from the same
// owner at once); empty when this rank's C is empty or k == 0.
SrummaTaskList srumma_tasks(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                            const Grid& grid);

// Stable reorder: tasks whose pieces are both readable in place (local(owner) true for A's
// and B's owners) first, in their diagonal-shift order, then the others in that order.
// Returns how many tasks are local.
template <class IsLocal>
size_t srumma_local_first(std::vector<SrummaTask>& tasks, IsLocal local) {
  auto it = std::stable_partition(tasks.begin(), tasks.end(), [&](const SrummaTask& t) {
    return local(t.a.owner) && local(t.b.owner);
  });
  return size_t(it - tasks.begin());
}

}  // namespace commpress::linalg::detail
