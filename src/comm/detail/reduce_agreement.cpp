#include "comm/detail/reduce_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "comm/detail/private_comm.hpp"

namespace commpress::comm::detail {

double ValueRange::max_abs() const {
  return lo <= hi ? std::max(std::fabs(lo), std::fabs(hi)) : 0.0;
}

Result<ValueRange> agree_with_range(MPI_Comm comm, const char* op_name,
                                    const std::vector<Field>& fields, Dtype dtype,
                                    const void* data, size_t n) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (data && n && (dtype == Dtype::f32 || dtype == Dtype::f64)) {
    const codec::ValueRange r = codec::finite_range(data, n, dtype);
    if (r.any_finite) {
      lo = r.min;
      hi = r.max;
    }
  }
  // MIN over [v..., -v..., lo, -hi] gives every field's min and max and the range at once.
  const size_t k = fields.size();
  std::vector<double> buf(2 * k + 2);
  for (size_t i = 0; i < k; ++i) {
    buf[i] = double(fields[i].value);
    buf[k + i] = -double(fields[i].value);
  }
  buf[2 * k] = lo;
  buf[2 * k + 1] = -hi;
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, buf.data(), int(buf.size()), MPI_DOUBLE, MPI_MIN, comm));
  for (size_t i = 0; i < k; ++i)
    if (buf[i] != -buf[k + i])
      return Status{ErrorCode::mismatch,
                    std::string(op_name) + ": ranks disagree on " + fields[i].name +
                        ": values range from " + std::to_string(int64_t(buf[i])) + " to " +
                        std::to_string(int64_t(-buf[k + i]))};
  return ValueRange{buf[2 * k], -buf[2 * k + 1]};
}

}  // namespace commpress::comm::detail
