#include "comm/session/value_range.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "comm/session/private_comm.hpp"

namespace commpress::comm::detail {

double ValueRange::max_abs() const {
  return lo <= hi ? std::max(std::fabs(lo), std::fabs(hi)) : 0.0;
}

namespace {

ValueRange from(const codec::ValueRange& v) {
  if (v.any_finite) return {v.min, v.max};
  return {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
}

bool has_range(Dtype dtype) {
  return dtype == Dtype::f32 || dtype == Dtype::f64;
}

}  // namespace

ValueRange local_range(Dtype dtype, const void* data, size_t n) {
  if (!data || !n || !has_range(dtype)) return from({});
  return from(codec::finite_range(data, n, dtype));
}

ValueRange local_range_copy(Dtype dtype, const void* data, size_t n, void* copy) {
  if (!data || !n) return from({});
  const codec::ValueRange v = codec::finite_range_copy(data, n, dtype, copy);
  return has_range(dtype) ? from(v) : from({});
}

}  // namespace commpress::comm::detail
