// The prefix of a shaped szp-e payload (docs/format/szp-e.md, "Shaped payload"): the tag
// byte, the array's 2 or 3 dimensions, the predictor and the slab height, which together give
// the box the prediction runs over (slab_prediction.hpp). Also the encoder's rule from a caller's
// shape to that box.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "codec/lossy/szp/shaped_huffman.hpp"
#include "codec/lossy/szp/slab_prediction.hpp"
#include "commpress/status.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp {

// First payload byte of a shaped payload, whose codes are in szp blocks (kShapedTag) or
// Huffman-coded (kShapedHuffmanTag, shaped_huffman.hpp); a flat payload starts with a chunk's
// mode byte (0x01, 0x02, 0x11 or 0x12), so they never meet.
inline constexpr uint8_t kShapedTag = 0x20;
inline constexpr uint8_t kShapedHuffmanTag = 0x21;
// The largest plane (all dimensions but the slowest) a shaped payload holds: a decoder keeps
// one row of it as scratch, and a plane this size already makes z-prediction rare.
inline constexpr uint64_t kMaxPlaneValues = uint64_t{1} << 26;
inline constexpr size_t kMaxShapedPrefix = 3 + 3 * 8 + 8;

struct ShapedPrefix {
  uint8_t tag = kShapedTag;
  int ndim = 0;
  Predictor predictor = Predictor::interpolation;
  uint64_t dims[3] = {};
  Box box;
  size_t size() const { return 3 + 8 * size_t(ndim) + 8; }
};

// The encoder's box for a caller's shape: dimensions of 1 are dropped, more than three are
// merged into the slowest; nullopt when fewer than two remain or a plane is too large (the
// array is then coded flat). The tag picks the layout and with it the slab height.
inline std::optional<ShapedPrefix> shaped_prefix_for(std::span<const uint64_t> shape,
                                                     uint8_t tag = kShapedTag) {
  uint64_t kept[64];
  int m = 0;
  for (uint64_t s : shape)
    if (s != 1) {
      if (s == 0 || m == 64) return std::nullopt;
      kept[m++] = s;
    }
  if (m < 2) return std::nullopt;
  ShapedPrefix p;
  p.tag = tag;
  p.ndim = m == 2 ? 2 : 3;
  uint64_t slow = 1;
  for (int i = 0; i + (p.ndim - 1) < m; ++i) slow *= kept[i];
  p.dims[0] = slow;
  for (int i = 1; i < p.ndim; ++i) p.dims[i] = kept[m - p.ndim + i];
  const uint64_t plane = p.ndim == 2 ? p.dims[1] : p.dims[1] * p.dims[2];
  if (plane > kMaxPlaneValues) return std::nullopt;
  p.box = {size_t(p.dims[0]), p.ndim == 2 ? 1 : size_t(p.dims[1]), size_t(p.dims[p.ndim - 1]),
           1};
  p.box.slab = tag == kShapedHuffmanTag ? huffman_encoder_slab(p.box.nz, p.box.plane())
                                        : encoder_slab(p.box.nz, p.box.plane());
  return p;
}

inline size_t write_shaped_prefix(const ShapedPrefix& p, std::byte* out) {
  out[0] = std::byte(p.tag);
  out[1] = std::byte(uint8_t(p.ndim));
  out[2] = std::byte(uint8_t(p.predictor));
  for (int i = 0; i < p.ndim; ++i) core::store_le<uint64_t>(out + 3 + 8 * i, p.dims[i]);
  core::store_le<uint64_t>(out + 3 + 8 * p.ndim, uint64_t(p.box.slab));
  return p.size();
}

// Reads and checks a shaped prefix against the frame's count (payload starts with a tag).
inline Result<ShapedPrefix> read_shaped_prefix(std::span<const std::byte> payload, uint64_t n) {
  auto bad = [](const std::string& why) {
    return Status{ErrorCode::corrupt_frame, "szp-e shaped payload: " + why};
  };
  if (payload.size() < 3) return bad("ends inside its prefix");
  ShapedPrefix p;
  p.tag = std::to_integer<uint8_t>(payload[0]);
  p.ndim = std::to_integer<int>(payload[1]);
  if (p.ndim != 2 && p.ndim != 3) return bad(std::to_string(p.ndim) + " dimensions");
  const int predictor = std::to_integer<int>(payload[2]);
  if (predictor != int(Predictor::interpolation))
    return bad("predictor " + std::to_string(predictor));
  p.predictor = Predictor(predictor);
  if (payload.size() < p.size()) return bad("ends inside its prefix");
  uint64_t count = 1;
  for (int i = 0; i < p.ndim; ++i) {
    p.dims[i] = core::load_le<uint64_t>(payload.data() + 3 + 8 * i);
    if (p.dims[i] == 0 || p.dims[i] > n || count > n / p.dims[i])
      return bad("dimensions do not multiply to the count " + std::to_string(n));
    count *= p.dims[i];
  }
  if (count != n) return bad("dimensions do not multiply to the count " + std::to_string(n));
  const uint64_t plane = n / p.dims[0];
  const uint64_t slab = core::load_le<uint64_t>(payload.data() + 3 + 8 * p.ndim);
  if (plane > kMaxPlaneValues) return bad("a plane of " + std::to_string(plane) + " values");
  if (slab == 0 || slab > p.dims[0]) return bad("slab of " + std::to_string(slab) + " planes");
  p.box = {size_t(p.dims[0]), p.ndim == 2 ? 1 : size_t(p.dims[1]), size_t(p.dims[p.ndim - 1]),
           size_t(slab)};
  return p;
}

}  // namespace commpress::codec::szp
