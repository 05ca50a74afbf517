// SUMMA multiplies op(A) (m x k) by op(B) (k x n) with both in the block layout of the grid's
// layer: op(X)'s rows split over the grid rows, its columns over the grid columns. A
// non-transposed operand already is that block; a transposed one is stored X (split the other
// way round), so its block of op(X) gathers pieces from several owners whenever pr != pc.
// Redistributing it once, exactly, keeps the panel loop simple: every panel piece then has a
// single owner in each grid row and column, for any grid shape and any transpose combination.
#pragma once

#include <cstdint>
#include <vector>

#include "commpress/linalg.hpp"
#include "linalg/gemm/panel_stream.hpp"

namespace commpress::linalg::detail {

// This rank's block of op(X), column-major with leading dimension ld.
template <class T>
struct OperandBlock {
  const T* data = nullptr;
  int64_t ld = 1;
  std::vector<T> storage;  // the redistributed copy when X is transposed
};

// Refuses (alike on every rank: it depends only on global sizes) transposed operands whose
// exchange counts would not fit MPI's int counts. Every layer calls it before any transfer.
Status check_operand_size(Trans t, int64_t op_rows, int64_t op_cols, const Grid& g);

// op(X) is op_rows x op_cols; x is stored op_rows x op_cols (N) or op_cols x op_rows (T).
// Collective over the grid's layer_comm; only layer 0 (where matrices live) calls it. Counts
// the exchange's bytes (raw, exact) and the copy's memory into traffic.
template <class T>
Status operand_block(Trans t, const DistMatrix<T>& x, int64_t op_rows, int64_t op_cols,
                     const Grid& g, OperandBlock<T>& out, SummaTally& tally);

}  // namespace commpress::linalg::detail
