// The acceptance test every reconstructed value passes before the encoder commits to it.
// It decides |x - y| <= e exactly, not merely after rounding the subtraction, so the promise
// written in the frame header holds in real arithmetic, not only in floating point.
#pragma once

#include <cmath>

namespace commpress::codec::predictive {

inline bool within_bound(double x, double y, double e) {
  const double s = x - y;
  const double mag = std::fabs(s);
  if (!(mag <= e)) return false;  // also rejects NaN and overflow
  // Rounding is monotonic: a rounded difference below e means the exact one is below e too.
  if (mag < e) return true;
  // The rounded difference equals e: the exact difference s + err decides. err is the
  // rounding error of x - y, recovered exactly by the TwoSum identity (no FMA contraction in
  // this build, and no overflow since |s| is finite).
  const double ny = -y;
  const double bv = s - x;
  const double err = (x - (s - bv)) + (ny - bv);
  return s > 0 ? err <= 0 : err >= 0;
}

}  // namespace commpress::codec::predictive
