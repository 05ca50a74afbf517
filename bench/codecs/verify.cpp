#include "codecs/verify.hpp"

#include <cmath>
#include <cstring>

namespace commpress::bench {
namespace {

template <class T>
Verdict within(const T* x, const T* y, size_t n, double bound) {
  Verdict v;
  for (size_t i = 0; i < n; ++i) {
    // In double: the float difference itself could round below the bound.
    double err = std::fabs(double(x[i]) - double(y[i]));
    // A NaN error sticks: nothing compares greater than it.
    if (std::isnan(err) || err > v.max_abs_err) v.max_abs_err = err;
    if (v.ok && !(err <= bound)) {
      v.ok = false;
      v.detail = "element " + std::to_string(i) + ": |" + std::to_string(double(x[i])) + " - " +
                 std::to_string(double(y[i])) + "| = " + std::to_string(err) + " > bound " +
                 std::to_string(bound);
    }
  }
  return v;
}

template <class T>
Verdict exact(const T* x, const T* y, size_t n) {
  Verdict v;
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) {
      double err = std::fabs(double(x[i]) - double(y[i]));
      if (std::isnan(err) || err > v.max_abs_err) v.max_abs_err = err;
      if (v.ok) v.detail = "element " + std::to_string(i) + " differs";
      v.ok = false;
    }
  }
  return v;
}

}  // namespace

Verdict check_within(const Dataset& d, size_t n, const void* decoded, double abs_bound) {
  if (d.dtype == codec::Dtype::f32)
    return within(d.f32.data(), static_cast<const float*>(decoded), n, abs_bound);
  return within(d.f64.data(), static_cast<const double*>(decoded), n, abs_bound);
}

Verdict check_exact(const Dataset& d, size_t n, const void* decoded) {
  if (d.dtype == codec::Dtype::f32)
    return exact(d.f32.data(), static_cast<const float*>(decoded), n);
  return exact(d.f64.data(), static_cast<const double*>(decoded), n);
}

}  // namespace commpress::bench
