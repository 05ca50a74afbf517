// Distributed dense matrix multiply, C = alpha * op(A) * op(B) + beta * C, over a process grid,
// with Cannon, SUMMA, SRUMMA and the 2.5D algorithms, optionally moving compressed blocks.
//
// Layout: every algorithm works on the "block" distribution of a global rows x cols matrix
// over a pr x pc grid: grid row i owns the global rows [i*mb, min(rows, (i+1)*mb)) with
// mb = ceil(rows / pr) (so trailing grid rows may own nothing), likewise for columns, and a
// rank stores its block column-major with leading dimension ld >= max(1, local rows). This is
// exactly a ScaLAPACK block-cyclic layout with MB = ceil(M/pr), NB = ceil(N/pc) and source
// process (0, 0), so matrices pass to and from ScaLAPACK without copies (see scalapack.h for
// the pdgemm-compatible entry point, which redistributes any other layout).
//
// 2.5D grids have c layers of pr x pc ranks; the matrices live on layer 0 (ranks of other
// layers pass empty local blocks) and the result is written there.
//
// Every call is collective over the grid. All ranks check the arguments together and return
// the same error (no rank is left hanging).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "commpress/codec.hpp"
#include "commpress/gemm_algorithm.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg {

using codec::Dtype;
using codec::ErrorBound;

enum class Trans : uint8_t { N = 0, T = 1 };

// The one algorithm enum (commpress/gemm_algorithm.hpp), also model::GemmAlgorithm.
using GemmAlgorithm = commpress::GemmAlgorithm;

const char* gemm_algorithm_name(GemmAlgorithm a);  // "auto", "cannon", "summa25d", ...
// Where it comes from: "Cannon (1969)", "2.5D SUMMA (Solomonik & Demmel 2011)", ...
const char* gemm_algorithm_literature(GemmAlgorithm a);
Result<GemmAlgorithm> parse_gemm_algorithm(std::string_view name);

// Splits n items over p parts in blocks of ceil(n / p): the block distribution above.
struct BlockSplit {
  int64_t n = 0;
  int parts = 1;
  int64_t block() const { return parts > 0 && n > 0 ? (n + parts - 1) / parts : 0; }
  int64_t offset(int i) const;  // first item of part i (clamped to n)
  int64_t size(int i) const;    // items of part i (0 for trailing parts when n is small)
};

// A pr x pc (x c) grid over the ranks of a communicator. Rank r of the grid's communicator
// sits at layer r / (pr*pc), row (r % (pr*pc)) / pc, column r % pc: row-major within a layer,
// as BLACS' default "Row" ordering. Copies share the communicators (freed with the last copy).
class Grid {
 public:
  // Collective over comm: every rank must pass the same shape and pr*pc*c == size(comm).
  static Result<Grid> create(MPI_Comm comm, int rows, int cols, int layers = 1);
  // The grid of a BLACS context (Cblacs_gridinit / blacs_gridinit), one layer.
  static Result<Grid> from_blacs(int context);

  int rows() const;
  int cols() const;
  int layers() const;
  int row() const;    // this rank's coordinates
  int col() const;
  int layer() const;
  int size() const;   // rows * cols * layers
  int rank_of(int row, int col, int layer = 0) const;  // rank in comm()

  MPI_Comm comm() const;        // every rank of the grid (a private duplicate)
  MPI_Comm row_comm() const;    // same row and layer, ranked by column
  MPI_Comm col_comm() const;    // same column and layer, ranked by row
  MPI_Comm layer_comm() const;  // same layer, ranked row-major
  MPI_Comm fiber_comm() const;  // same row and column across layers, ranked by layer

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

// A rank's view of a block-distributed matrix (see the layout above). `data` may be null when
// the rank owns no element (or sits on a layer other than 0).
template <class T>
struct DistMatrix {
  int64_t rows = 0;  // global
  int64_t cols = 0;
  T* data = nullptr;  // local block, column-major
  int64_t ld = 1;     // >= max(1, local_rows)

  BlockSplit row_split(const Grid& g) const { return {rows, g.rows()}; }
  BlockSplit col_split(const Grid& g) const { return {cols, g.cols()}; }
  int64_t local_rows(const Grid& g) const {
    return g.layer() == 0 ? row_split(g).size(g.row()) : 0;
  }
  int64_t local_cols(const Grid& g) const {
    return g.layer() == 0 ? col_split(g).size(g.col()) : 0;
  }
};

struct GemmOptions {
  GemmAlgorithm algorithm = GemmAlgorithm::Auto;
  // Codec for the blocks that travel: "none" (raw), any registry name ("zstd-1", "lz4",
  // "szp", "zfp"...), or "auto" (Auto decides whether and which). Lossless codecs give results
  // identical to the uncompressed algorithm.
  std::string codec = "none";
  // Bound on every INPUT element's perturbation for lossy codecs: ABS, or REL to each input
  // matrix's global value range. The report gives the bound this implies on C.
  ErrorBound bound = ErrorBound::lossless();
  bool overlap = true;         // overlap transfers with the local products
  int layers = 0;              // Auto: replication c to consider (0 = any that fits the grid)
  int64_t panel = 0;           // SUMMA panel width in columns of op(A) (0 = chosen)
  uint64_t memory_cap_bytes = 0;  // per rank, for Auto's choice of c (0 = no cap)
};

struct GemmReport {
  GemmAlgorithm algorithm = GemmAlgorithm::Auto;  // the one that ran
  int grid_rows = 0, grid_cols = 0, layers = 1;
  std::string codec = "none";     // "none" when nothing was compressed
  uint64_t raw_bytes = 0;         // uncompressed bytes this rank's transfers represent
  uint64_t bytes_sent = 0;        // bytes this rank actually sent (or fetched, for SRUMMA)
  double ratio() const { return bytes_sent ? double(raw_bytes) / double(bytes_sent) : 1.0; }
  uint64_t memory_bytes = 0;      // this rank's extra memory (buffers, replicas, frames)
  double predicted_seconds = 0;   // the model's estimate (0 when not modelled)
  // A bound on every element of |C - C_exact_inputs| from the lossy inputs, which holds for
  // |alpha| * sum_k (eA*|B_kj| + eB*|A_ik| + eA*eB) at every (i, j): |alpha| * (eA * max_j
  // sum_k |B_kj| + eB * max_i sum_k |A_ik| + k*eA*eB), computable from one reduction per
  // operand; 0 when exact. Floating-point rounding of the products, present in every
  // algorithm, is not included.
  double guaranteed_abs_bound = 0;
};

// Everything a multiply does, decided before it runs: the algorithm (never Auto), the grid, the
// codec and which operands go through it with which bound, the panel width, the overlap, and
// the model's time and memory. A pure function of agreed inputs (the call's sizes and options,
// the rank count or grid, the shared-memory domain and the machine profile), so every rank
// holds the same plan; gemm(plan, ...) executes it and decides nothing. The multiply has no
// run-time fallback: what looks like one (codec "auto" sending raw blocks, a SUMMA panel with
// nowhere to travel staying raw, ScaLAPACK ignoring a codec) is in the plan's fields.
struct GemmPlan {
  GemmAlgorithm algorithm = GemmAlgorithm::Auto;
  int grid_rows = 1, grid_cols = 1, layers = 1;
  std::string codec = "none";  // resolved: "none" or a registry name
  double predicted_seconds = 0;
  uint64_t memory_bytes = 0;  // per rank, largest over the ranks
  // The multiply it was made for; gemm(plan, ...) checks the matrices against it.
  Trans transa = Trans::N, transb = Trans::N;
  int64_t m = 0, n = 0, k = 0;  // op(A) is m x k, op(B) k x n
  Dtype dtype = Dtype::f64;
  // Which operands travel through the codec (the others travel raw, or not at all, and stay
  // exact), and the bound each one's blocks are compressed with: lossless, ABS, or REL to that
  // operand's global value range (the one number execution computes from the data).
  bool compress_a = false, compress_b = false;
  ErrorBound bound_a = ErrorBound::lossless(), bound_b = ErrorBound::lossless();
  bool overlap = true;
  int64_t panel = 0;       // SUMMA, 2.5D SUMMA: panel width in columns of op(A); 0 for the others
  int ranks_per_node = 1;  // the shared-memory domain the model assumed (SRUMMA reads in it)
};

// The inputs a plan is a pure function of, besides the options and the machine profile in
// force (COMMPRESS_PROFILE, else the built-in default): the multiply, and either a rank count
// (Auto chooses the grid) or a grid (grid_rows, grid_cols, layers all > 0).
struct GemmProblem {
  Trans transa = Trans::N, transb = Trans::N;
  int64_t m = 0, n = 0, k = 0;
  Dtype dtype = Dtype::f64;
  int ranks = 0;           // with no grid: every pr x pc x c over these ranks
  int grid_rows = 0, grid_cols = 0, layers = 0;
  int ranks_per_node = 1;  // ranks per shared-memory domain (SRUMMA's model)
  // Whether MPI_Win_create works over the ranks (the collective plan_gemm tries it): where it
  // does not, SRUMMA across more than one domain cannot run, and Auto leaves it out.
  bool one_sided = true;
};

// Pure (no MPI): what gemm would run. This is what `commpress plan gemm` prints.
Result<GemmPlan> plan_gemm(const GemmProblem& problem, const GemmOptions& opts = {});

template <class T>
Result<GemmReport> gemm(Trans transa, Trans transb, T alpha, const DistMatrix<T>& a,
                        const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid,
                        const GemmOptions& opts = {});
// Executes a plan (from plan_gemm on this grid, or on this grid's rank count when its grid is
// this one): every rank must pass the same plan, matrices of its sizes and a grid of its shape,
// else every rank fails with the same error. gemm(transa, ..., opts) is plan_gemm on the grid,
// then this.
template <class T>
Result<GemmReport> gemm(const GemmPlan& plan, T alpha, const DistMatrix<T>& a,
                        const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid);

// Collective: the arguments are agreed on first, the shared-memory domain measured (the
// smallest over the ranks, or COMMPRESS_PRETEND_RANKS_PER_NODE when smaller), then the pure
// plan_gemm above. On a given grid, Auto chooses among the algorithms that grid can run
// (layers > 1: the 2.5D ones; a square face: Cannon too) and whether to compress.
Result<GemmPlan> plan_gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, Dtype dtype,
                           const Grid& grid, const GemmOptions& opts = {});
// Over a communicator, Auto also chooses the grid: every pr x pc x c with pr*pc*c = size(comm)
// (c > 1 only for square faces, within opts.memory_cap_bytes).
Result<GemmPlan> plan_gemm(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, Dtype dtype,
                           MPI_Comm comm, const GemmOptions& opts = {});

extern template Result<GemmReport> gemm<float>(Trans, Trans, float, const DistMatrix<float>&,
                                               const DistMatrix<float>&, float,
                                               DistMatrix<float>&, const Grid&,
                                               const GemmOptions&);
extern template Result<GemmReport> gemm<double>(Trans, Trans, double, const DistMatrix<double>&,
                                                const DistMatrix<double>&, double,
                                                DistMatrix<double>&, const Grid&,
                                                const GemmOptions&);
extern template Result<GemmReport> gemm<float>(const GemmPlan&, float, const DistMatrix<float>&,
                                               const DistMatrix<float>&, float,
                                               DistMatrix<float>&, const Grid&);
extern template Result<GemmReport> gemm<double>(const GemmPlan&, double,
                                                const DistMatrix<double>&,
                                                const DistMatrix<double>&, double,
                                                DistMatrix<double>&, const Grid&);

}  // namespace commpress::linalg
