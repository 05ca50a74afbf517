// One zfp stream for a 1-D array (no zfp header: the frame header carries type and count),
// shared by the reversible and fixed-accuracy codecs.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::codec::detail {

struct ZfpMode {
  bool reversible = true;
  double tolerance = 0;  // fixed-accuracy absolute tolerance when !reversible

  static ZfpMode lossless() { return {true, 0.0}; }
  static ZfpMode accuracy(double tol) { return {false, tol}; }
};

// f32 and f64 in both modes; i32 and i64 in reversible mode.
bool zfp_supports(Dtype d, const ZfpMode& mode);
// Worst-case stream bytes for n elements, whatever their values.
size_t zfp_max_stream_bytes(size_t n, Dtype d, const ZfpMode& mode);
// Fewest stream bytes any n elements take: zfp spends at least one bit on every block.
size_t zfp_min_stream_bytes(size_t n);
// Compresses n elements into out (out.size() >= zfp_max_stream_bytes); returns bytes written.
Result<size_t> zfp_encode_1d(const void* data, size_t n, Dtype d, const ZfpMode& mode,
                             std::span<std::byte> out);
// Decodes an untrusted stream of exactly stream.size() bytes into n elements. The stream is
// copied into `scratch` with zero padding so that no block, however damaged, reads past it.
Status zfp_decode_1d(std::span<const std::byte> stream, size_t n, Dtype d, const ZfpMode& mode,
                     void* out, std::vector<std::byte>& scratch);

}  // namespace commpress::codec::detail
