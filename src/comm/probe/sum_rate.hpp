// MachineProfile::gamma: seconds per byte of one operand of y += x (f32), the reduction every
// algorithm performs; the fastest of `reps` sums over n values.
#pragma once

#include <cstddef>

namespace commpress::comm::probe {

double measure_gamma(size_t n, int reps);

}  // namespace commpress::comm::probe
