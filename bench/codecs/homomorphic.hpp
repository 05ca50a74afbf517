// The "homomorphic" section: combining szp frames without decoding them (combine,
// combine_raw) against the decompress + add + compress round trip it replaces.
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
// Writes CSV rows (its own columns: see the implementation) for every data set and REL bound.
Status run_homomorphic(const std::vector<Dataset>& sets, const Options& o, std::ostream& csv);

}  // namespace commpress::bench
