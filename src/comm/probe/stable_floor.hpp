// How many times the zero-configuration probe repeats a measurement: until its fastest runs
// agree, within a count and a time budget. Interference on a shared machine only ever adds
// time, so a floor that two runs reached is the floor, and repeating further only costs time;
// where every run waits for a core (a loaded machine), no floor shows and the budget ends it.
// Pure bookkeeping on the times the caller hands in (and the clock it reads), so the rule
// is the same on every rank that sees the same times, and a test can drive it.
#pragma once

#include <algorithm>
#include <cmath>

namespace commpress::comm::probe {

struct FloorBudget {
  int min_runs = 2;       // never fewer (a floor needs two runs)
  int max_runs = 8;       // never more
  double seconds = 0;     // no new run once the caller's elapsed time reaches this (0: none)
  double agree = 0.05;    // the two fastest within this fraction of each other: the floor
                          // (negative: no floor; the runs last the count or the seconds)
};

class StableFloor {
 public:
  explicit StableFloor(FloorBudget budget) : budget_(budget) {}

  void add(double t) {
    ++runs_;
    if (t < best_) second_ = best_, best_ = t;
    else if (t < second_) second_ = t;
  }
  // Whether to stop, given the elapsed time the caller measured since its first run.
  bool done(double elapsed) const {
    if (runs_ >= budget_.max_runs) return true;
    if (runs_ < budget_.min_runs) return false;
    if (budget_.seconds > 0 && elapsed >= budget_.seconds) return true;
    return floor_seen();
  }
  bool floor_seen() const {
    return runs_ >= 2 && std::isfinite(second_) && second_ <= best_ * (1 + budget_.agree);
  }
  double fastest() const { return best_; }
  int runs() const { return runs_; }

 private:
  FloorBudget budget_;
  int runs_ = 0;
  double best_ = INFINITY, second_ = INFINITY;
};

}  // namespace commpress::comm::probe
