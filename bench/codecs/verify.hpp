// What the benchmark checks on every decoded array: the largest error against the bound the
// frame promises (lossy), or bit-for-bit equality (lossless).
#pragma once

#include <cstddef>
#include <string>

#include "codecs/datasets.hpp"

namespace commpress::bench {

struct Verdict {
  double max_abs_err = 0;  // NaN when a finite input came back non-finite
  bool ok = true;
  std::string detail;      // the first offending element when !ok
};

// Compares the first n values of the data set with decoded.
Verdict check_within(const Dataset& d, size_t n, const void* decoded, double abs_bound);
Verdict check_exact(const Dataset& d, size_t n, const void* decoded);

}  // namespace commpress::bench
