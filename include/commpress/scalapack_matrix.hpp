// ScaLAPACK matrices and commpress matrices, each usable as the other.
//
// A ScaLAPACK matrix is a local array plus a 9-integer descriptor on a BLACS context, in any
// 2-D block-cyclic layout. ScaLapackMatrix attaches to one and presents it as a DistMatrix in
// commpress's block layout (linalg.hpp): in place when the descriptor already describes that
// layout, else as a copy redistributed by ScaLAPACK's own p?gemr2d_, written back on request.
// descriptor_of goes the other way: a DistMatrix handed to ScaLAPACK routines without a copy.
#pragma once

#include <array>
#include <memory>

#include "commpress/linalg.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg {

// ScaLAPACK's array descriptor: DTYPE (1), CTXT, M, N, MB, NB, RSRC, CSRC, LLD.
using Descriptor = std::array<int, 9>;

// The descriptor of m's block layout on a BLACS context whose grid is `grid` (the Grid of
// Grid::from_blacs(context)): MB = ceil(M / pr), NB = ceil(N / pc), source process (0, 0),
// LLD = m.ld. Local, no communication.
template <class T>
Descriptor descriptor_of(const DistMatrix<T>& m, const Grid& grid, int context);

template <class T>
class ScaLapackMatrix {
 public:
  // Collective over the processes of desc's context. Every process checks the descriptor as
  // PBLAS would and all of them return the same error when any check fails (a process
  // outside the context fails alone: it cannot reach the others). On success the matrix's
  // values are in matrix() (the caller's array itself when in_place()).
  static Result<ScaLapackMatrix> attach(T* data, const Descriptor& desc);

  ScaLapackMatrix(ScaLapackMatrix&&) noexcept;
  ScaLapackMatrix& operator=(ScaLapackMatrix&&) noexcept;
  ~ScaLapackMatrix();

  const Grid& grid() const;
  DistMatrix<T>& matrix();
  bool in_place() const;
  // Collective: copies matrix() back into the caller's array in its own layout (nothing
  // moves when in_place()).
  void write_back();

  struct State;

 private:
  explicit ScaLapackMatrix(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

extern template class ScaLapackMatrix<float>;
extern template class ScaLapackMatrix<double>;

}  // namespace commpress::linalg
