// Measures one codec on one data set at one bound and thread count: ratio, compress and
// decompress throughput, and the largest error, checked against what the frame promises.
#pragma once

#include <cstddef>
#include <vector>

#include "codecs/datasets.hpp"
#include "codecs/results.hpp"
#include "commpress/codec.hpp"

namespace commpress::bench {

// The knobs of Options (options.hpp) that shape one measurement.
struct MeasureConfig {
  int max_repeats;  // timed repeats after the warm-up, at most
  double budget_s;  // per direction: fewer repeats for codecs slower than this allows
  double subset_s;  // a prefix when one compress + decompress of the whole takes longer
};

// Reused across measurements so the timed loops allocate nothing.
class Buffers {
 public:
  std::vector<std::byte>& frame() { return frame_; }
  codec::Workspace& workspace() { return ws_; }
  void* decoded_for(const Dataset& d);  // room for d.count() values of d.dtype

 private:
  std::vector<std::byte> frame_;
  std::vector<float> out32_;
  std::vector<double> out64_;
  codec::Workspace ws_;
};

// rel > 0: lossy codec at that REL bound; rel == 0: lossless codec. n_used: how many values
// to measure, 0 to decide by timing (pass the first thread count's choice to the others, so
// their rows compare the same bytes).
// A codec name with this suffix ("szp-e:nd") measures the codec given the data set's shape.
inline constexpr const char* kShapedSuffix = ":nd";

Row measure_codec(const codec::Codec& c, const Dataset& d, double rel, int threads,
                  size_t n_used, const MeasureConfig& cfg, Buffers& b,
                  bool shaped = false);
// memcpy of the whole data set, split over the threads: the ceiling any codec is read against.
Row measure_memcpy(const Dataset& d, int threads, const MeasureConfig& cfg, Buffers& b);

}  // namespace commpress::bench
