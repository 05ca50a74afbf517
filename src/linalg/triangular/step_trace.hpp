// A record of when the Cholesky's panels travel and its updates run, per rank, for finding
// where the ranks wait (docs/triangular.md, "Tracing"). Off unless COMMPRESS_TRIANGULAR_TRACE
// names a file prefix: then each rank appends its events of each call to <prefix>.<world
// rank>, one line each, "seconds event block-column", the seconds on the steady clock (which
// the ranks of one host share, so the files of netsim's ranks line up), and a last line with
// the call's wall and CPU seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "linalg/layout/block_cyclic.hpp"

namespace commpress::linalg::detail {

class StepTrace {
 public:
  explicit StepTrace(const LineGrid& g);
  StepTrace(const StepTrace&) = delete;
  StepTrace& operator=(const StepTrace&) = delete;
  ~StepTrace();  // writes the file
  // `what` must outlive the trace (a string literal).
  void mark(const char* what, int64_t k) {
    if (on_) events_.push_back({seconds(), what, k});
  }

 private:
  static double seconds();
  struct Event {
    double t;
    const char* what;
    int64_t k;
  };
  bool on_ = false;
  std::string path_;
  int row_ = 0, col_ = 0;
  double cpu0_ = 0, wall0_ = 0;
  std::vector<Event> events_;
};

}  // namespace commpress::linalg::detail
