// Where Cannon's blocks live and travel on a q x q layer. op(A) is cut into q x q blocks by
// BlockSplit{m,q} x BlockSplit{k,q}, op(B) by BlockSplit{k,q} x BlockSplit{n,q}. A rank always
// holds a block in its STORED orientation (the transpose of op's block when trans == T), so a
// transposed operand is never transposed in memory: the local product passes the flag on.
//
// Rank (i, j) multiplies op(A)(i, kk) * op(B)(kk, j) with kk = (i + j + t) mod q at step t;
// A moves left along the row and B up along the column between steps, so the skew that sets
// up step `first` is a general permutation once either operand is transposed.
#pragma once

#include <cstdint>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

struct GridPos {
  int row = 0, col = 0;
};

// A block's stored shape (column-major, packed: ld = rows).
struct BlockShape {
  int64_t rows = 0, cols = 0;
  int64_t elements() const { return rows * cols; }
  int64_t ld() const { return rows > 1 ? rows : 1; }
};

class CannonLayout {
 public:
  CannonLayout(int q, int64_t m, int64_t n, int64_t k, Trans ta, Trans tb)
      : q_(q), m_{m, q}, n_{n, q}, k_{k, q}, ta_(ta), tb_(tb) {}

  int q() const { return q_; }
  int k_block(GridPos p, int step) const { return mod(p.row + p.col + step); }

  // Stored shape of op(A)(i, kk) and op(B)(kk, j).
  BlockShape a_shape(int i, int kk) const {
    return ta_ == Trans::N ? BlockShape{m_.size(i), k_.size(kk)}
                           : BlockShape{k_.size(kk), m_.size(i)};
  }
  BlockShape b_shape(int kk, int j) const {
    return tb_ == Trans::N ? BlockShape{k_.size(kk), n_.size(j)}
                           : BlockShape{n_.size(j), k_.size(kk)};
  }
  // Stored shape of the block a rank holds before the skew (its own block of A or B).
  BlockShape a_held_shape(GridPos p) const {
    return ta_ == Trans::N ? a_shape(p.row, p.col) : a_shape(p.col, p.row);
  }
  BlockShape b_held_shape(GridPos p) const {
    return tb_ == Trans::N ? b_shape(p.row, p.col) : b_shape(p.col, p.row);
  }
  // The largest stored block of each operand (the first blocks of the ceil splits).
  int64_t a_max_elements() const { return m_.block() * k_.block(); }
  int64_t b_max_elements() const { return k_.block() * n_.block(); }
  int64_t m_size(int i) const { return m_.size(i); }
  int64_t n_size(int j) const { return n_.size(j); }
  int64_t k_size(int kk) const { return k_.size(kk); }

  // Skew: the rank that uses the stored block held at `held` first (at step `first`), and
  // the rank holding the stored block `p` uses first.
  GridPos a_destination(GridPos held, int first) const {
    const int i = ta_ == Trans::N ? held.row : held.col;  // op(A) block row
    const int kk = ta_ == Trans::N ? held.col : held.row;
    return {i, mod(kk - i - first)};
  }
  GridPos a_source(GridPos p, int first) const {
    const int kk = k_block(p, first);
    return ta_ == Trans::N ? GridPos{p.row, kk} : GridPos{kk, p.row};
  }
  GridPos b_destination(GridPos held, int first) const {
    const int j = tb_ == Trans::N ? held.col : held.row;  // op(B) block column
    const int kk = tb_ == Trans::N ? held.row : held.col;
    return {mod(kk - j - first), j};
  }
  GridPos b_source(GridPos p, int first) const {
    const int kk = k_block(p, first);
    return tb_ == Trans::N ? GridPos{kk, p.col} : GridPos{p.col, kk};
  }

 private:
  int mod(int v) const { return ((v % q_) + q_) % q_; }

  int q_;
  BlockSplit m_, n_, k_;
  Trans ta_, tb_;
};

// Steps [first, last) of layer l when c layers share Cannon's q steps (2.5D); c = 1 gives
// [0, q). Layers beyond q steps' worth get empty ranges.
inline int layer_first_step(int q, int c, int l) { return int(int64_t(l) * q / c); }

}  // namespace commpress::linalg::detail
