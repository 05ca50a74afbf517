// The sampled ratios as the ranks agree on them, in the argument agreement's minima: each
// ratio as the worst rank's, and each ratio's bits per value at unit range as the most any
// rank needs, so that a ratio sampled under a REL bound resolved on one rank's range can be
// re-priced at the range all ranks agree on (which no rank knows before the agreement).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace commpress::comm::detail {

struct SampledRatios {
  double at_bound = 0, at_fine = 0;                  // the codec's (0 = none sampled)
  double entropy_at_bound = 0, entropy_at_fine = 0;  // the entropy mode's (0 = none)
  double range = 0;       // the range a REL bound was resolved on (0: not a REL bound)
  size_t elem_bytes = 0;  // of the sampled dtype
};

// The selection's agreed minima, in this order (AutoSelection::kMins of them).
namespace selection_slot {
inline constexpr size_t at_bound = 0, at_fine = 1, oversubscription = 2, entropy_at_bound = 3,
                        entropy_at_fine = 4, unit_bits = 5, count = 9;
}

// An agreed ratio as the plans take it: 0 where no rank sampled one (not finite, not > 0).
inline double agreed_ratio(double r) { return std::isfinite(r) && r > 0 ? r : 0.0; }

// What a rank without a sample adds (a neutral value for every minimum).
std::vector<double> no_selection_mins();
// What a rank adds: its ratios, -oversubscription, and -(bits per value + log2 range) per ratio.
std::vector<double> selection_mins(const SampledRatios& s, double oversubscription);

// The agreed ratios re-priced at the agreed range of the inputs (range > 0): the bits per value
// of a quantizing codec fall by one per doubling of the bound while quantization dominates,
// so each rank's bits at the agreed range are its unit-range bits less log2(range). Nearer the
// codec's floor they fall more slowly, so the re-priced bits are trusted down to half the
// worst rank's sampled bits only. The ratios never fall.
void at_agreed_range(std::span<double> agreed, double range, size_t elem_bytes);

}  // namespace commpress::comm::detail
