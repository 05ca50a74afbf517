// How far a decoded array is from its original: the numbers `commpress codec compare` prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace commpress::cli {

struct ErrorMetrics {
  uint64_t count = 0;
  // Positions where the original or the decoded value is NaN/Inf. They are left out of the
  // error statistics; a codec must carry them exactly, so the ones whose bits differ are
  // counted separately.
  uint64_t nonfinite = 0;
  uint64_t nonfinite_differ = 0;
  // In long double, whose exponent range holds any difference of two doubles and its square,
  // so the figures stay finite and true at every magnitude (no squared error underflows to 0
  // near 1e-300 or overflows near 1e300).
  long double min = 0, max = 0;  // range of the original's finite values (both 0 if none)
  long double max_abs_error = 0;
  long double rmse = 0;
  long double nrmse = 0;  // rmse / (max - min); 0 for an exact match, inf when the range is 0
  long double psnr = 0;   // 20 log10((max - min) / rmse) dB; inf for an exact match
};

ErrorMetrics compare_arrays(std::span<const float> original, std::span<const float> decoded);
ErrorMetrics compare_arrays(std::span<const double> original, std::span<const double> decoded);

}  // namespace commpress::cli
