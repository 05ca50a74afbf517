// The message size from which compression pays for one transfer. With straight lines for
// codec and link the comparison is linear in the size, so what makes small messages lose
// is the fixed cost of a codec call and the protocol switch; the crossing is found
// numerically on the piecewise model.
#include <cmath>

#include "commpress/model.hpp"

namespace commpress::model {

namespace {

constexpr double kSmallest = 64;
constexpr double kLargest = double(uint64_t{1} << 40);

}  // namespace

double break_even_bytes(const MachineProfile& m, const CodecRates& rates, double ratio,
                        bool homomorphic) {
  if (!(ratio > 0)) return INFINITY;
  // Both sides reduce the arriving range (gamma) unless the homomorphic path folds it in.
  auto gain = [&](double x) {
    const double raw = m.network.time(x) + x * m.gamma;
    const double packed = rates.compress_time(x) + m.network.time(x / ratio) +
                          (homomorphic ? rates.combine_raw_time(x)
                                       : rates.decompress_time(x) + x * m.gamma);
    return raw - packed;
  };
  if (!(gain(kLargest) > 0)) return INFINITY;
  // Walk down from the largest size to the last one where compression loses, then bisect.
  double hi = kLargest, lo = hi;
  while (lo > kSmallest && gain(lo) > 0) {
    hi = lo;
    lo = std::max(kSmallest, lo / 1.25);
  }
  if (gain(lo) > 0) return kSmallest;
  for (int i = 0; i < 60 && hi - lo > 1; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gain(mid) > 0 ? hi : lo) = mid;
  }
  return std::ceil(hi);
}

}  // namespace commpress::model
