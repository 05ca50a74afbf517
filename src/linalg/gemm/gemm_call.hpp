// One distributed multiply as the algorithms see it: the arguments (already agreed on by every
// rank and checked against the grid) plus what the dispatcher resolved (codec, input bounds).
// Each algorithm fills the traffic and memory fields of the report; the dispatcher fills the
// rest (algorithm, grid, codec, model prediction, error bound on C).
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
  const GemmOptions* opts = nullptr;
  int layers = 1;          // replication used by the 2.5D algorithms (= grid->layers())
  std::string codec = "none";  // resolved: "none" or a registry name
  // Absolute bound on every element's perturbation when A / B travel compressed (0 = exact).
  // Codecs compress each block once with these bounds, so C's error follows from them.
  codec::ErrorBound block_bound_a = codec::ErrorBound::lossless();
  codec::ErrorBound block_bound_b = codec::ErrorBound::lossless();
};

// Each returns ok on every rank or the same error on every rank.
template <class T> Status run_cannon(const GemmCall<T>& call, GemmReport& report);
template <class T> Status run_summa(const GemmCall<T>& call, GemmReport& report);
template <class T> Status run_srumma(const GemmCall<T>& call, GemmReport& report);
template <class T> Status run_cannon25d(const GemmCall<T>& call, GemmReport& report);
template <class T> Status run_summa25d(const GemmCall<T>& call, GemmReport& report);
template <class T> Status run_scalapack(const GemmCall<T>& call, GemmReport& report);

}  // namespace commpress::linalg::detail
