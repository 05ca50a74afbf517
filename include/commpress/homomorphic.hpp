// Homomorphic operations on `szp` frames: element-wise sums computed on the compressed
// representation, bit-exact with the quantized arithmetic, so a reduction step never has to
// decompress, add and compress again. Semantics and error bound: docs/format/homomorphic.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::codec {

enum class CombineOp : uint8_t { sum };

// out = a + b element-wise, as one szp frame. a and b must be szp frames with the same dtype,
// count and bit-identical abs_bound (the quantization step); anything else is refused with
// ErrorCode::mismatch. The result keeps that abs_bound and counts its summed inputs in the
// header's param (summed_inputs). out may be the storage of a or b: it is written only after
// both have been read.
Status combine(std::span<const std::byte> a, std::span<const std::byte> b, CombineOp op,
               std::vector<std::byte>& out, Workspace& ws);
Status combine(std::span<const std::byte> a, std::span<const std::byte> b, CombineOp op,
               std::vector<std::byte>& out);

// out = local + frame in one pass: the local values are quantized with the frame's bound
// while the frame's blocks are decoded, with no intermediate array and no separate
// compression of local. The result is byte for byte combine(szp-compress(local, ABS
// frame.abs_bound), frame). d and n must match the frame's dtype and count.
Status combine_raw(const void* local, size_t n, Dtype d, std::span<const std::byte> frame,
                   CombineOp op, std::vector<std::byte>& out, Workspace& ws);
Status combine_raw(const void* local, size_t n, Dtype d, std::span<const std::byte> frame,
                   CombineOp op, std::vector<std::byte>& out);

template <class T>
Status combine_raw(std::span<const T> local, std::span<const std::byte> frame, CombineOp op,
                   std::vector<std::byte>& out, Workspace& ws) {
  return combine_raw(local.data(), local.size(), dtype_of<T>(), frame, op, out, ws);
}
template <class T>
Status combine_raw(std::span<const T> local, std::span<const std::byte> frame, CombineOp op,
                   std::vector<std::byte>& out) {
  return combine_raw(local.data(), local.size(), dtype_of<T>(), frame, op, out);
}

// How many quantized inputs an szp frame sums: k = max(param, 1). Its decoded values are
// within k * abs_bound of the exact sum of those inputs, plus floating-point rounding
// (docs/format/homomorphic.md).
inline uint32_t summed_inputs(const FrameInfo& info) { return std::max<uint32_t>(info.param, 1); }

}  // namespace commpress::codec
