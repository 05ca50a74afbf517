// The compression ratio of an array, estimated by compressing a few strided pieces of it
// (at most 4 x 32K elements, and about 1/64 of the array), so Auto can judge compression
// on the actual data for a small fraction of the cost of compressing it.
#pragma once

#include <cstddef>

#include "commpress/codec.hpp"

namespace commpress::comm {

struct RatioSample {
  bool sampled = false;  // false: nothing to sample, or the codec refused the pieces
  double at_bound = 0;   // ratio at the bound
  double at_fine = 0;    // ratio at bound / fine_divisor (when asked for and lossy)
  double elements = 0;   // how many elements were compressed per bound
  double range = 0;      // the range a REL bound was resolved on (0: no REL bound resolved)
};

// A REL bound is resolved on the range of the pieces and of 4096 elements spread evenly over
// the array (at most the array's, so the estimate errs towards a smaller ratio), the inputs'
// range also where partial sums are sampled. fine_divisor > 1 also samples at bound / fine_divisor.
// partial_sums (f32 and f64): the pieces are summed two by two, each with the next (a single
// piece: its halves), and the ratio is that of the sums, as a stand-in for the partial sums
// that decompress-operate-compress reductions code at every step; their values move more
// than one rank's, which costs the entropy mode's sparse chunks most (figures:
// docs/szp-modes.md, "In the collectives").
RatioSample sample_ratio(const codec::Codec& c, const void* data, size_t n, codec::Dtype dtype,
                         const codec::ErrorBound& bound, double fine_divisor = 1,
                         bool partial_sums = false);

}  // namespace commpress::comm
