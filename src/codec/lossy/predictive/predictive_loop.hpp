// The element loop both predictive formats share. A format supplies only how a value is
// written or read; the preprocessing, the predictor history and the rule that keeps encoder
// and decoder in lockstep live here, once:
//   - a value whose shifted form is finite and predictable within the bound is a code;
//   - any other finite value is handed to the format's miss handler, which says what the
//     decoder will reconstruct in the shifted domain (that, not the original, enters the
//     history);
//   - a value whose shifted form is not finite (NaN, Inf, or an overflowing shift) travels
//     verbatim and never enters the history, which bridges the gap with its own
//     extrapolation instead, so it cannot poison later predictions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "codec/lossy/predictive/difference_preprocess.hpp"
#include "codec/lossy/predictive/polynomial_predictor.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::predictive {

// Sink: predicted(int order); verbatim(T x); T miss(T x, T shifted) -> reconstructed shift.
// The sink travels by value and comes back: as a local its fields (output cursors) stay in
// registers instead of being reloaded after every byte store.
template <class T, class Sink>
Sink encode_elements(const T* x, size_t n, T offset, double e, Sink sink) {
  PolynomialPredictor<T> history;
  for (size_t i = 0; i < n; ++i) {
    const T xi = x[i];
    const T d = to_difference(xi, offset);
    if (!std::isfinite(d)) {
      sink.verbatim(xi);
      history.bridge_gap();
      continue;
    }
    const auto choice = history.choose(xi, offset, e);
    if (choice.order >= 0) {
      sink.predicted(choice.order);
      history.push_predicted(choice.order, choice.value);
    } else {
      history.push(sink.miss(xi, d));
    }
  }
  return sink;
}

// What a format's reader yields for one element.
template <class T>
struct Piece {
  enum class Kind : uint8_t { predicted, shifted, verbatim, invalid };
  Kind kind;
  int order;  // predicted: 0..3
  T value;    // shifted: the reconstructed difference; verbatim: the element itself
};

// Source: Piece<T> next(); Status error(size_t element) explains an invalid piece.
template <class T, class Source>
Status decode_elements(Source& source, size_t n, T offset, T* out) {
  using Kind = typename Piece<T>::Kind;
  PolynomialPredictor<T> history;
  for (size_t i = 0; i < n; ++i) {
    const Piece<T> piece = source.next();
    switch (piece.kind) {
      case Kind::predicted: {
        const T p = history.predict(piece.order);
        out[i] = from_difference(p, offset);
        history.push_predicted(piece.order, p);
        break;
      }
      case Kind::shifted:
        out[i] = from_difference(piece.value, offset);
        history.push(piece.value);
        break;
      case Kind::verbatim: {
        out[i] = piece.value;
        const T d = to_difference(piece.value, offset);
        if (std::isfinite(d)) history.push(d);
        else history.bridge_gap();
        break;
      }
      case Kind::invalid:
        return source.error(i);
    }
  }
  return {};
}

}  // namespace commpress::codec::predictive
