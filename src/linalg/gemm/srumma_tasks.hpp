// SRUMMA's task list: the products one rank performs to compute its own block of C
// (owner computes). Each task multiplies one rectangular piece of stored A by one of stored
// B, each held by a single owner rank, into a sub-block of this rank's C. Pure arithmetic on
// the block layout: no MPI, so the list is the same wherever it is computed.
#pragma once

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

// A range of this rank's local C rows or columns.
struct SrummaRange {
  int64_t begin = 0, size = 0;
};

// One segment of the k decomposition: the A piece for every C row range and the B piece for
// every C column range. Its tasks are the products a[mi] * b[ni] into C sub-block (mi, ni);
// a piece shared by several tasks is fetched once for the step.
struct SrummaStep {
  int k_index = 0;  // position of the segment along k
  int64_t kk = 0;   // its length
  std::vector<SrummaPiece> a, b;
};

struct SrummaTaskList {
  std::vector<SrummaRange> rows, cols;  // C sub-blocks: rows[mi] x cols[ni]
  std::vector<SrummaStep> steps;        // in diagonal-shift order
  int k_segments = 0;
  size_t tasks() const { return steps.size() * rows.size() * cols.size(); }
};

// The tasks of grid position (row, col) for C = op(A) op(B) with op(A) m x k, op(B) k x n,
// block-distributed over the rows x cols grid. The k decomposition is the union of the
// boundaries of A's and B's k splits (ceil splits, over different grid dimensions for the two
// operands), and C's rows (columns) are cut at the boundaries of A's m (B's n) split, so each
// task's pieces each come from one owner. Steps come k segment by k segment, starting at
// segment (row + col) mod K (the diagonal shift, so ranks do not all fetch from the same
// owner at once); no steps when this rank's C is empty or k == 0.
SrummaTaskList srumma_tasks(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                            const Grid& grid);

}  // namespace commpress::linalg::detail
