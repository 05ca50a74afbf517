// Shared pieces of the distributed-multiply tests: a locally allocated block-distributed
// matrix filled from a seed, and this rank's block of the exact answer computed serially with
// BLAS from the same seeds (no gathering, so every rank checks its own block).
#pragma once

#include <cblas.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "commpress/linalg.hpp"
#include "linalg/layout/matrix_fill.hpp"

namespace commpress::testing {

template <class T>
struct LocalMatrix {
  std::vector<T> storage;
  linalg::DistMatrix<T> view;

  // rows x cols global, this rank's block, ld = local rows + pad (pad exercises ld > rows).
  LocalMatrix(int64_t rows, int64_t cols, const linalg::Grid& g, uint64_t seed,
              double zero_fraction = 0, int64_t pad = 0) {
    view.rows = rows;
    view.cols = cols;
    const int64_t lr = view.local_rows(g), lc = view.local_cols(g);
    view.ld = std::max<int64_t>(1, lr + pad);
    storage.assign(size_t(view.ld * std::max<int64_t>(lc, 1)), T(0));
    view.data = storage.data();
    linalg::detail::fill_block(view, g, seed, zero_fraction);
  }
  // Every local element set to v (e.g. NaN to check that beta == 0 overwrites C).
  void set_all(T v) { std::fill(storage.begin(), storage.end(), v); }
  T at(int64_t i, int64_t j) const { return view.data[i + j * view.ld]; }
};

// This rank's block of alpha * op(A) * op(B) + beta * C0 (all from seeds), in double, and the
// per-element tolerance k * eps * sum_k |op(A)_ik| |op(B)_kj| scaled by |alpha| (plus beta's
// term), the rounding any summation order may produce.
struct Expected {
  std::vector<double> value, tolerance;
  int64_t rows = 0, cols = 0;
};

template <class T>
Expected expected_block(linalg::Trans ta, linalg::Trans tb, int64_t m, int64_t n, int64_t k,
                        double alpha, uint64_t seed_a, uint64_t seed_b, double beta,
                        uint64_t seed_c, const linalg::Grid& g, double zeros_a = 0,
                        double zeros_b = 0) {
  Expected e;
  linalg::DistMatrix<T> shape;
  shape.rows = m;
  shape.cols = n;
  e.rows = shape.local_rows(g);
  e.cols = shape.local_cols(g);
  const int64_t r0 = shape.row_split(g).offset(g.row()), c0 = shape.col_split(g).offset(g.col());
  // op(A) rows r0.. and op(B) columns c0.., regenerated in double.
  std::vector<double> a(size_t(std::max<int64_t>(1, e.rows * k))),
      b(size_t(std::max<int64_t>(1, k * e.cols)));
  for (int64_t i = 0; i < e.rows; ++i)
    for (int64_t p = 0; p < k; ++p)
      a[size_t(i + p * e.rows)] = ta == linalg::Trans::N
                                      ? double(T(linalg::detail::matrix_value(seed_a, r0 + i, p, zeros_a)))
                                      : double(T(linalg::detail::matrix_value(seed_a, p, r0 + i, zeros_a)));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < e.cols; ++j)
      b[size_t(p + j * k)] = tb == linalg::Trans::N
                                 ? double(T(linalg::detail::matrix_value(seed_b, p, c0 + j, zeros_b)))
                                 : double(T(linalg::detail::matrix_value(seed_b, c0 + j, p, zeros_b)));
  e.value.assign(size_t(e.rows * e.cols), 0.0);
  e.tolerance.assign(size_t(e.rows * e.cols), 0.0);
  const double eps = std::numeric_limits<T>::epsilon();
  for (int64_t j = 0; j < e.cols; ++j)
    for (int64_t i = 0; i < e.rows; ++i) {
      double s = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        s += a[size_t(i + p * e.rows)] * b[size_t(p + j * k)];
        mag += std::fabs(a[size_t(i + p * e.rows)] * b[size_t(p + j * k)]);
      }
      const double c = beta == 0 ? 0.0 : double(T(linalg::detail::matrix_value(seed_c, r0 + i, c0 + j)));
      e.value[size_t(i + j * e.rows)] = alpha * s + beta * c;
      e.tolerance[size_t(i + j * e.rows)] =
          double(k + 2) * eps * (std::fabs(alpha) * mag + std::fabs(beta * c)) + 4 * eps;
    }
  return e;
}

// Largest |got - expected| / tolerance over this rank's block (<= 1 passes); NaN counts as
// infinitely wrong.
template <class T>
double worst_error_ratio(const LocalMatrix<T>& got, const Expected& e) {
  double worst = 0;
  for (int64_t j = 0; j < e.cols; ++j)
    for (int64_t i = 0; i < e.rows; ++i) {
      const double d = std::fabs(double(got.at(i, j)) - e.value[size_t(i + j * e.rows)]);
      const double r = std::isnan(d) ? std::numeric_limits<double>::infinity()
                                     : d / e.tolerance[size_t(i + j * e.rows)];
      worst = std::max(worst, r);
    }
  return worst;
}

}  // namespace commpress::testing
