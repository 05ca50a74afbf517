// A codec's rates on this machine (compress, decompress, and szp's homomorphic combine and
// combine_raw): measured by `commpress profile` on random walks at several bounds, and by the
// first collective's probe on the call's own data at one bound.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "commpress/codec.hpp"
#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// One codec measurement at one bound (rates in bytes/s of uncompressed data; 0 = n/a).
struct CodecRow {
  std::string codec;
  codec::Dtype dtype = codec::Dtype::f32;
  double rel_bound = 0;  // 0 for lossless codecs
  double ratio = 0;
  double compress = 0, decompress = 0, combine = 0, combine_raw = 0;
};

// How a run is timed: by the wall clock, or by the time it ran on its cores (timing.hpp,
// timed_on_core: the waits for a core left out).
enum class Clocking { wall, on_core };

// a and b: n values each of dtype T (b is the second operand of the combines). One ABS bound
// from a's range at `rel` serves both, so their frames combine. The fastest of `reps` runs.
template <class T>
Result<CodecRow> measure_codec(const codec::Codec& c, double rel, const T* a, const T* b,
                               size_t n, int reps, Clocking clock = Clocking::wall);

// Fixed cost of one call: a 1024-value array's time beyond what the row's rates account for.
template <class T>
double measure_call_overhead(const codec::Codec& c, const CodecRow& row);

// The rates of rows of one codec and dtype at different bounds: the harmonic mean (mean
// time per byte); the typical ratio is the row nearest REL 1e-4's.
model::CodecRates summarize(std::span<const CodecRow> rows, double call_overhead);

}  // namespace commpress::comm::probe
