#include "cli/error_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace commpress::cli {

namespace {

template <class T>
ErrorMetrics compare(std::span<const T> x, std::span<const T> y) {
  using L = long double;
  ErrorMetrics m;
  m.count = x.size();
  L lo = std::numeric_limits<L>::infinity(), hi = -lo;
  L sum_sq = 0;
  uint64_t finite = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i])) {
      lo = std::min<L>(lo, x[i]);
      hi = std::max<L>(hi, x[i]);
    }
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      ++m.nonfinite;
      if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) ++m.nonfinite_differ;
      continue;
    }
    const L err = std::fabs(L(x[i]) - L(y[i]));
    m.max_abs_error = std::max(m.max_abs_error, err);
    sum_sq += err * err;
    ++finite;
  }
  if (lo <= hi) {
    m.min = lo;
    m.max = hi;
  }
  m.rmse = finite ? std::sqrt(sum_sq / L(finite)) : L(0);
  const L range = m.max - m.min;
  constexpr L inf = std::numeric_limits<L>::infinity();
  if (m.rmse == 0) {
    m.nrmse = 0;
    m.psnr = inf;
  } else if (range > 0) {
    m.nrmse = m.rmse / range;
    m.psnr = 20 * std::log10(range / m.rmse);
  } else {
    m.nrmse = inf;
    m.psnr = -inf;
  }
  return m;
}

}  // namespace

ErrorMetrics compare_arrays(std::span<const float> original, std::span<const float> decoded) {
  return compare(original, decoded);
}

ErrorMetrics compare_arrays(std::span<const double> original, std::span<const double> decoded) {
  return compare(original, decoded);
}

}  // namespace commpress::cli
