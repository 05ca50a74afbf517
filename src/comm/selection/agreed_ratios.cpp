#include "comm/selection/agreed_ratios.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace commpress::comm::detail {

namespace {

namespace slot = selection_slot;

// The ratio slots, each with its unit-bits slot at slot::unit_bits + its index here.
constexpr size_t kRatioSlots[] = {slot::at_bound, slot::at_fine, slot::entropy_at_bound,
                                  slot::entropy_at_fine};
static_assert(slot::unit_bits + std::size(kRatioSlots) == slot::count);

bool usable(double v) {
  return std::isfinite(v) && v > 0;
}

}  // namespace

std::vector<double> no_selection_mins() {
  const double none = std::numeric_limits<double>::infinity();
  std::vector<double> m(slot::count, none);
  m[slot::oversubscription] = -1.0;
  return m;
}

std::vector<double> selection_mins(const SampledRatios& s, double oversubscription) {
  std::vector<double> m = no_selection_mins();
  const double ratios[] = {s.at_bound, s.at_fine, s.entropy_at_bound, s.entropy_at_fine};
  for (size_t i = 0; i < std::size(kRatioSlots); ++i) {
    if (!usable(ratios[i])) continue;
    m[kRatioSlots[i]] = ratios[i];
    if (usable(s.range) && s.elem_bytes)
      m[slot::unit_bits + i] = -(8.0 * double(s.elem_bytes) / ratios[i] + std::log2(s.range));
  }
  m[slot::oversubscription] = -oversubscription;
  return m;
}

void at_agreed_range(std::span<double> agreed, double range, size_t elem_bytes) {
  if (!usable(range) || elem_bytes == 0 || agreed.size() < slot::count) return;
  const double bits = 8.0 * double(elem_bytes);
  for (size_t i = 0; i < std::size(kRatioSlots); ++i) {
    double& ratio = agreed[kRatioSlots[i]];
    const double unit_bits = -agreed[slot::unit_bits + i];
    if (!usable(ratio) || !std::isfinite(unit_bits)) continue;
    const double worst_bits = bits / ratio;
    const double at_range = std::max(unit_bits - std::log2(range), worst_bits / 2);
    ratio = std::max(ratio, bits / at_range);
  }
}

}  // namespace commpress::comm::detail
