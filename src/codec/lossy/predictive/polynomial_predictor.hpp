// Polynomial extrapolation of the next value from the last four reconstructed ones:
//   order 0: d1                      (constant)
//   order 1: 2 d1 - d2               (line)
//   order 2: 3 d1 - 3 d2 + d3        (parabola)
//   order 3: 4 d1 - 6 d2 + 4 d3 - d4 (cubic)
// where d1 is the previous value. The history holds what the DECODER will reconstruct, never
// the originals, and starts as four zeros (last order 0), so both sides compute bit-identical
// predictions.
#pragma once

#include <cmath>
#include <limits>

#include "codec/lossy/predictive/difference_preprocess.hpp"
#include "codec/lossy/predictive/exact_bound.hpp"

namespace commpress::codec::predictive {

inline constexpr int kPredictorOrders = 4;

template <class T>
class PolynomialPredictor {
 public:
  // The one expression per order both encoder and decoder evaluate (the build disables FMA
  // contraction, and every operand and intermediate is a T).
  T predict(int order) const {
    switch (order) {
      case 0: return h1_;
      case 1: return T(2) * h1_ - h2_;
      case 2: return T(3) * h1_ - T(3) * h2_ + h3_;
      default: return T(4) * h1_ - T(6) * h2_ + T(4) * h3_ - h4_;
    }
  }

  // A reconstructed value that was not predicted (stored truncated or verbatim).
  void push(T d) {
    h4_ = h3_;
    h3_ = h2_;
    h2_ = h1_;
    h1_ = d;
  }

  // A value reconstructed by predict(order).
  void push_predicted(int order, T p) {
    last_order_ = order;
    push(p);
  }

  // An element with no finite shifted value (NaN, Inf) is a gap in the signal: it is filled
  // with the extrapolation of the order that last worked, so a smooth run continues across it
  // with its index intact. A fill that overflows is left out rather than poison the history.
  void bridge_gap() {
    const T p = predict(last_order_);
    if (std::isfinite(p)) push(p);
  }

  struct Choice {
    int order;  // -1: no order reconstructs x within the bound
    T value;    // the chosen prediction (difference domain), for push_predicted
  };

  // The order whose prediction, shifted back by the offset, lands closest to x (ties go to
  // the lower order), provided that reconstruction is within e of x. Predictions that
  // overflow to Inf or NaN are never chosen.
  Choice choose(T x, T offset, double e) const {
    Choice best{-1, T(0)};
    double best_err = std::numeric_limits<double>::infinity();
    T best_rebuilt = T(0);
    for (int k = 0; k < kPredictorOrders; ++k) {
      const T p = predict(k);
      const T rebuilt = from_difference(p, offset);
      const double err = std::fabs(double(x) - double(rebuilt));
      if (err < best_err) {
        best_err = err;
        best = {k, p};
        best_rebuilt = rebuilt;
      }
    }
    if (best.order >= 0 && !within_bound(double(x), double(best_rebuilt), e)) best.order = -1;
    return best;
  }

 private:
  T h1_ = T(0), h2_ = T(0), h3_ = T(0), h4_ = T(0);
  int last_order_ = 0;
};

}  // namespace commpress::codec::predictive
