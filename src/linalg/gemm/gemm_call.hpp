// One distributed multiply as the algorithms see it: the arguments (already agreed on by every
// rank and checked against the grid), the plan they execute, and the one thing execution
// computes from the data before the run: the absolute bound of each compressed operand (a REL
// bound resolved against its global range). Each algorithm fills the traffic and memory fields
// of the report; the dispatcher fills the rest (algorithm, grid, codec, model prediction, error
// bound on C).
//
// Each algorithm's planning hook and runner are declared here from its row of the algorithm
// table (model/gemm_algorithms.def); both live in the algorithm's own file.
#pragma once

#include <cstdint>
#include <string>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

template <class T>
struct GemmCall {
  Trans transa = Trans::N, transb = Trans::N;
  int64_t m = 0, n = 0, k = 0;  // op(A) is m x k, op(B) is k x n, C is m x n
  T alpha = 1, beta = 0;
  const DistMatrix<T>* a = nullptr;  // stored shape: m x k (N) or k x m (T)
  const DistMatrix<T>* b = nullptr;  // stored shape: k x n (N) or n x k (T)
  DistMatrix<T>* c = nullptr;
  const Grid* grid = nullptr;
  const GemmPlan* plan = nullptr;
  // The codec each operand's blocks travel with: the plan's codec where it compresses that
  // operand, else "none".
  std::string codec_a = "none", codec_b = "none";
  // Absolute bound on every element's perturbation when A / B travel compressed (0 = exact).
  // Codecs compress each block once with these bounds, so C's error follows from them.
  codec::ErrorBound block_bound_a = codec::ErrorBound::lossless();
  codec::ErrorBound block_bound_b = codec::ErrorBound::lossless();
};

// Planning hooks fill what the algorithm adds to a plan whose algorithm, grid, codec and
// requested panel are set: compress_a, compress_b (with codec "none" the planner clears them)
// and the panel width. Runners return ok on every rank or the same error on every rank.
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  void plan(GemmPlan&);                                                                        \
  template <class T>                                                                           \
  Status runner(const GemmCall<T>&, GemmReport&);
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM

// Runs the chosen algorithm's planning hook on a plan whose algorithm, grid, codec and requested
// panel are set, then clears compress_a and compress_b when the codec is "none".
Status plan_details(GemmPlan& plan);

// Runs the plan's algorithm (the table's runner for it).
template <class T>
Status run_planned(const GemmCall<T>& call, GemmReport& report);

}  // namespace commpress::linalg::detail
