// Choosing among the szp codecs' modes for an array at hand.
#pragma once

#include <cstdint>
#include <span>

#include "commpress/codec.hpp"

namespace commpress::codec {

// The szp mode for an array under a lossy bound (docs/szp-modes.md):
// szp (fast, summable), szp-eh along the flat array (szp-e's chunks, sparse where that is
// smaller), or szp-eh over the shape (when the shape has two dimensions other than 1), from the
// sizes of a few small samples compressed with each at the array's absolute bound. The
// sampled ratios are returned for the caller to report.
struct SzpModeChoice {
  const Codec* codec = nullptr;  // "szp" or "szp-eh" (flat, or with the shape)
  bool shaped = false;           // compress with the shape
  // szp_e_ratio: szp-eh's along the flat array (the name predates its sparse chunks).
  double szp_ratio = 0, szp_e_ratio = 0, shaped_ratio = 0;  // 0 where not sampled
};
Result<SzpModeChoice> choose_szp_mode(const void* data, std::span<const uint64_t> shape, size_t n,
                                      Dtype d, const ErrorBound& bound);

}  // namespace commpress::codec
