// The matrices of `commpress bench gemm` on one grid: A and B filled from seeds, C, and this
// rank's block of a reference product computed once (untimed), against which every measured
// result is checked element by element.
#pragma once

#include <mpi.h>

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commpress/linalg.hpp"

namespace commpress::cli {

struct GridShape {
  int rows = 1, cols = 1, layers = 1;
  auto operator<=>(const GridShape&) const = default;
  std::string str() const;  // "2x2x1"
};

// "PRxPC" or "PRxPCxC", every factor >= 1.
Result<GridShape> parse_grid_shape(std::string_view text);
// The most square pr x pc = ranks with pr <= pc, one layer.
GridShape squarest_grid(int ranks);

// serial: this rank's block recomputed in double from the seeds with the local BLAS (cheap
// only for small sizes); scalapack: the uncompressed pdgemm/psgemm result on the same inputs;
// none: no check; auto: serial while op(A)'s rows and op(B)'s columns of a C block fit 1 GiB
// of doubles, scalapack above.
enum class ReferenceKind { automatic, serial, scalapack, none };
Result<ReferenceKind> parse_reference_kind(std::string_view name);
const char* reference_kind_name(ReferenceKind kind);

struct GemmProblem {
  linalg::Trans transa = linalg::Trans::N, transb = linalg::Trans::N;
  int64_t m = 0, n = 0, k = 0;
  double zeros = 0;   // fraction of exact zeros in A and B
  uint64_t seed = 1;  // A uses seed, B seed + 1
  ReferenceKind reference = ReferenceKind::automatic;
};

// How a result compares with the reference on this rank.
struct ErrorCheck {
  double max_error = 0;  // max |C - C_ref| (infinite for NaN)
  double allowance = 0;  // largest rounding allowance (k+2) eps |A||B| used in the check
  bool within = true;    // every |C - C_ref| <= bound + its element's rounding allowance
};

template <class T>
class GemmCase {
 public:
  // Collective over comm: builds the grid, fills the inputs, computes the reference.
  static Result<std::unique_ptr<GemmCase>> make(const GemmProblem& problem, GridShape shape,
                                                MPI_Comm comm);

  Result<linalg::GemmReport> run(const linalg::GemmOptions& opts);  // C = op(A) op(B)
  void run_blas();  // the same product by one local BLAS call (1x1 grids only)

  void poison_output();  // C = NaN, so a run that writes nothing fails its check
  ErrorCheck check(double bound) const;

  // What a panel-broadcast multiply (ScaLAPACK's pdgemm) moves for this rank, in bytes: its
  // traffic is not observable from outside, so the textbook volume stands in.
  uint64_t panel_broadcast_bytes() const;

  const linalg::Grid& grid() const { return grid_; }
  ReferenceKind reference() const { return reference_; }

 private:
  GemmCase(const GemmProblem& p, linalg::Grid g) : problem_(p), grid_(std::move(g)) {}
  void allocate(linalg::DistMatrix<T>& view, std::vector<T>& store, int64_t rows, int64_t cols);
  void serial_reference();
  Status scalapack_reference();

  GemmProblem problem_;
  linalg::Grid grid_;
  ReferenceKind reference_ = ReferenceKind::none;
  std::vector<T> a_store_, b_store_, c_store_;
  linalg::DistMatrix<T> a_, b_, c_;
  // This rank's block of C_ref and of |op(A)| |op(B)|, column-major with ld = local rows.
  std::vector<double> ref_, magnitude_;
};

extern template class GemmCase<float>;
extern template class GemmCase<double>;

}  // namespace commpress::cli
