// The exact values one rank's output should hold, computed in double precision from the
// input streams (bench_data.hpp), and the largest error of an actual output against them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "cli/bench_data.hpp"

namespace commpress::cli {

// A run of the output whose exact values are the sum of the same range of some streams.
struct Segment {
  size_t out_offset = 0;  // elements into the output buffer
  size_t length = 0;
  size_t stream_offset = 0;  // first value used of each stream
  size_t stream_length = 0;  // the length of each contribution (how files are sliced)
  std::vector<int> streams;  // one stream: a copy; several: their sum
};

class Reference {
 public:
  // The inputs are the streams' values rounded to dtype d, as the ranks hold them. Keeps the
  // exact values in memory when there are at most cache_limit of them (checks are then
  // cheap); otherwise regenerates them at each check.
  Reference(const DataSource& src, codec::Dtype d, std::vector<Segment> segments,
            size_t cache_limit);

  // Largest |out[i] - exact[i]| over the segments; +inf where a NaN or infinity differs.
  template <class T>
  double max_error(std::span<const T> out) const;

 private:
  // Calls f(out_offset, exact values) for consecutive pieces of every segment.
  template <class F>
  void for_each_piece(F&& f) const;

  const DataSource* src_;
  codec::Dtype dtype_;
  std::vector<Segment> segments_;
  bool cached_ = false;
  std::vector<double> cache_;  // the segments' exact values back to back, when cached_
};

}  // namespace commpress::cli
