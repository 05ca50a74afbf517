// Which szp mode suits an array (docs/szp-modes.md): szp, szp-eh along the flat array
// (szp-e's blocks, or its sparse chunks where those are smaller), or szp-eh over the caller's
// shape (Huffman-coded interpolation codes), judged by compressing small samples of the
// array with each at the array's own absolute bound.
#include <algorithm>
#include <vector>

#include "commpress/szp_mode.hpp"

namespace commpress::codec {
namespace {

// Flat samples: kPieces contiguous pieces spread over the array. Shaped sample: the first
// whole planes holding about kShapedSample values.
constexpr size_t kPieces = 4;
constexpr size_t kPieceValues = size_t{1} << 15;
constexpr size_t kShapedSample = size_t{1} << 17;
// The entropy modes are about half szp's speed and their frames cannot be summed: they must
// buy this much.
constexpr double kEntropyGain = 1.5;
// The shaped form costs about as much as the flat one: a clear gain is enough.
constexpr double kShapedGain = 1.25;

// Bytes of the frames of codec c over the sample.
Result<size_t> sampled_bytes(const Codec& c, const std::byte* x, size_t n, Dtype d,
                             std::span<const uint64_t> shape, double abs_eb) {
  const ErrorBound b = ErrorBound::absolute(abs_eb);
  const size_t es = dtype_size(d);
  std::vector<std::byte> frame;
  if (!shape.empty()) {
    const uint64_t plane = n / shape[0];
    std::vector<uint64_t> sub(shape.begin(), shape.end());
    sub[0] = std::clamp<uint64_t>(kShapedSample / std::max<uint64_t>(plane, 1), 1, shape[0]);
    COMMPRESS_RETURN_IF_ERROR(c.compress(x, sub, d, b, frame));
    return frame.size() * n / (sub[0] * plane);  // scaled to the whole array
  }
  const size_t piece = std::min(n, kPieceValues);
  const size_t pieces = std::min(kPieces, std::max<size_t>(1, n / piece));
  size_t bytes = 0;
  for (size_t p = 0; p < pieces; ++p) {
    const size_t at = (n - piece) / std::max<size_t>(1, pieces - 1) * p;
    COMMPRESS_RETURN_IF_ERROR(c.compress(x + at * es, piece, d, b, frame));
    bytes += frame.size();
  }
  return bytes * n / (piece * pieces);
}

}  // namespace

Result<SzpModeChoice> choose_szp_mode(const void* data, std::span<const uint64_t> shape, size_t n,
                                      Dtype d, const ErrorBound& bound) {
  if (d != Dtype::f32 && d != Dtype::f64)
    return Status{ErrorCode::unsupported, "szp modes take f32 or f64 only"};
  const Codec* szp = find_codec("szp");
  const Codec* szp_eh = find_codec("szp-eh");
  if (!szp || !szp_eh) return Status{ErrorCode::internal, "szp or szp-eh is not registered"};
  SzpModeChoice choice{szp, false, 0, 0, 0};
  auto eb = resolve_abs_bound(data, n, d, bound);
  if (!eb.ok()) return eb.status();
  if (n == 0 || !(*eb > 0)) return choice;  // exact: both code raw and zero blocks alike
  const auto* x = static_cast<const std::byte*>(data);
  auto fast = sampled_bytes(*szp, x, n, d, {}, *eb);
  if (!fast.ok()) return fast.status();
  // Flat, szp-eh writes szp-e's chunks or smaller sparse ones: never more bytes than szp-e.
  auto dense = sampled_bytes(*szp_eh, x, n, d, {}, *eb);
  if (!dense.ok()) return dense.status();
  const double raw = double(n * dtype_size(d));
  choice.szp_ratio = raw / double(std::max<size_t>(*fast, 1));
  choice.szp_e_ratio = raw / double(std::max<size_t>(*dense, 1));
  if (choice.szp_e_ratio >= kEntropyGain * choice.szp_ratio) choice.codec = szp_eh;
  size_t dims = 0;
  for (uint64_t s : shape) dims += s != 1;
  if (dims >= 2) {
    auto nd = sampled_bytes(*szp_eh, x, n, d, shape, *eb);
    if (!nd.ok()) return nd.status();
    choice.shaped_ratio = raw / double(std::max<size_t>(*nd, 1));
    const double best_flat = std::max(choice.szp_ratio, choice.szp_e_ratio);
    if (choice.shaped_ratio >= kShapedGain * best_flat &&
        choice.shaped_ratio >= kEntropyGain * choice.szp_ratio) {
      choice.codec = szp_eh;
      choice.shaped = true;
    }
  }
  return choice;
}

}  // namespace commpress::codec
