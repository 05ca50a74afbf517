// Wall-clock timing: a warm-up outside the measurement, then the median of a few repeats, as
// many as fit a time budget so slow codecs do not dominate the run.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds one call of body takes; body returns a Status, and a failure stops the timing.
template <class F>
Result<double> time_once(F&& body) {
  auto start = std::chrono::steady_clock::now();
  Status st = body();
  double s = seconds_since(start);
  if (!st.ok()) return st;
  return s;
}

// How many timed repeats to run when one run takes one_run_s: all of max_repeats if they fit
// the budget, never fewer than one.
inline int repeats_within(double one_run_s, double budget_s, int max_repeats) {
  if (!(one_run_s > 0)) return max_repeats;
  return std::clamp(int(budget_s / one_run_s), 1, max_repeats);
}

struct Timing {
  double median_s = 0;
  int repeats = 0;
};

template <class F>
Result<Timing> time_median(F&& body, int repeats) {
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto s = time_once(body);
    if (!s.ok()) return s.status();
    t.push_back(*s);
  }
  std::sort(t.begin(), t.end());
  size_t m = t.size() / 2;
  double median = t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
  return Timing{median, repeats};
}

}  // namespace commpress::bench
