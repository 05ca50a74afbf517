#include "comm/detail/value_range.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "comm/detail/private_comm.hpp"

namespace commpress::comm::detail {

double ValueRange::max_abs() const {
  return lo <= hi ? std::max(std::fabs(lo), std::fabs(hi)) : 0.0;
}

ValueRange local_range(Dtype dtype, const void* data, size_t n) {
  ValueRange r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  if (data && n && (dtype == Dtype::f32 || dtype == Dtype::f64)) {
    const codec::ValueRange v = codec::finite_range(data, n, dtype);
    if (v.any_finite) r = {v.min, v.max};
  }
  return r;
}

}  // namespace commpress::comm::detail
