// The value range a reduction's error budget needs (its largest magnitude): each rank's finite
// range, reduced over the ranks inside the argument agreement (collective.hpp).
#pragma once

#include <mpi.h>

#include <vector>

#include "comm/detail/agreement.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct ValueRange {
  double lo, hi;  // over the finite inputs of all ranks; lo > hi when there are none
  double max_abs() const;
};

// This rank's finite range (lo > hi when it has no finite value or is not f32/f64).
ValueRange local_range(Dtype dtype, const void* data, size_t n);

}  // namespace commpress::comm::detail
