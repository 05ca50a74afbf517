// The finite value range of one rank's data: what a REL bound resolves against and what a
// reduction's error budget needs (its largest magnitude), once reduced over the ranks (the
// reductions inside the argument agreement, collective.hpp; wire.hpp's agree_abs_bound).
#pragma once

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct ValueRange {
  double lo, hi;  // over the finite values; lo > hi when there are none
  double max_abs() const;
};

// This rank's finite range (lo > hi when it has no finite value or is not f32/f64).
ValueRange local_range(Dtype dtype, const void* data, size_t n);
// The same from the pass that also copies the n elements to `copy` (any dtype).
ValueRange local_range_copy(Dtype dtype, const void* data, size_t n, void* copy);

}  // namespace commpress::comm::detail
