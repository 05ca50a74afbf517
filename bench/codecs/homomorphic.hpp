// The "homomorphic" section: summing szp frames without decoding them (combine, combine_raw)
// against the decompress + add + compress round trip each replaces.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "codecs/datasets.hpp"
#include "codecs/options.hpp"
#include "commpress/status.hpp"

namespace commpress::bench {

// Empty when the section can run; otherwise why not.
std::string homomorphic_unavailable_reason();
// Writes one CSV row per operation, data set, REL bound and thread count; returns 1 when a
// result broke its error bound, 0 otherwise (2 on a failure to run).
int run_homomorphic(const std::vector<Dataset>& sets, const Options& o, std::ostream& csv);

}  // namespace commpress::bench
