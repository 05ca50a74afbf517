// What every measurement of the machine shares: the fastest of repeated runs (interference
// on a shared machine only ever adds time), the random walk the rates are measured on when
// no data is at hand, and the date in a profile's origin.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::comm::probe {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline void spin(double seconds) {
  const auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
  }
}

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The fastest of reps runs of f (a Status-returning callable); stops at the first failure.
template <class F>
double timed(F&& f, int reps, Status& st) {
  double best = 0;
  for (int i = 0; i < reps && st.ok(); ++i) {
    const auto t0 = Clock::now();
    st = f();
    const double t = seconds_since(t0);
    best = i == 0 ? t : std::min(best, t);
  }
  return best;
}

// The fastest of reps runs of f as `timed`, each run's time taken as the CPU time the process
// used where that is less than the wall-clock time: on one thread, the time the work took on
// its core, without the time it waited for one (another rank's or another job's turn). A run
// longer than a scheduler time slice on a loaded machine is never without such waits, so its
// fastest wall-clock time still holds them. Work on several threads uses more CPU time than
// wall-clock time unless its threads waited (and libgomp's threads spin after a region), so
// there the wall clock decides, as in `timed`.
template <class F>
double timed_on_core(F&& f, int reps, Status& st) {
  double best = 0;
  for (int i = 0; i < reps && st.ok(); ++i) {
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    st = f();
    const double t = std::min(seconds_since(t0), process_cpu_seconds() - c0);
    best = i == 0 ? t : std::min(best, t);
  }
  return best;
}

inline double rate(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0; }

template <class T>
std::vector<T> random_walk(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> step(0.0, 1.0);
  std::vector<T> v(n);
  double x = 0;
  for (T& e : v) e = T(x += step(gen));
  return v;
}

// The date a profile was measured, for its origin line (YYYY-MM-DD, UTC).
inline std::string today_utc() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

}  // namespace commpress::comm::probe
