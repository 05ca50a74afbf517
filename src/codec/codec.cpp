// The parts of compress/decompress shared by every codec: argument checks, REL resolution,
// framing, and dispatch on the frame's codec id.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>

#include "codec/format/frame_header.hpp"
#include "commpress/codec.hpp"
#include "core/assert.hpp"

namespace commpress::codec {

size_t dtype_size(Dtype d) {
  switch (d) {
    case Dtype::f32: return 4;
    case Dtype::f64: return 8;
    case Dtype::i32: return 4;
    case Dtype::i64: return 8;
    case Dtype::u8: return 1;
  }
  return 0;
}

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::f32: return "f32";
    case Dtype::f64: return "f64";
    case Dtype::i32: return "i32";
    case Dtype::i64: return "i64";
    case Dtype::u8: return "u8";
  }
  return "?";
}

Result<Dtype> parse_dtype(std::string_view name) {
  for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::i32, Dtype::i64, Dtype::u8})
    if (name == dtype_name(d)) return d;
  return Status{ErrorCode::invalid_argument,
                "unknown dtype '" + std::string(name) + "' (expected f32, f64, i32, i64 or u8)"};
}

bool is_float(Dtype d) { return d == Dtype::f32 || d == Dtype::f64; }

const char* bound_mode_name(BoundMode m) {
  switch (m) {
    case BoundMode::lossless: return "lossless";
    case BoundMode::abs: return "abs";
    case BoundMode::rel: return "rel";
  }
  return "?";
}

namespace {

Workspace& thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

}  // namespace

Status check_bound(const ErrorBound& bound) {
  if (bound.mode == BoundMode::lossless) return {};
  if (bound.mode != BoundMode::abs && bound.mode != BoundMode::rel)
    return {ErrorCode::invalid_argument, "unknown bound mode " + std::to_string(int(bound.mode))};
  if (!std::isfinite(bound.value) || !(bound.value > 0)) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%g", bound.value);
    return {ErrorCode::invalid_argument, std::string(bound_mode_name(bound.mode)) +
                                             " error bound must be a positive finite number, got " +
                                             buf};
  }
  return {};
}

Result<double> resolve_abs_bound(const void* data, size_t n, Dtype d, const ErrorBound& bound) {
  COMMPRESS_RETURN_IF_ERROR(check_bound(bound));
  if (bound.mode == BoundMode::lossless) return 0.0;
  if (bound.mode == BoundMode::abs) return bound.value;
  if (!is_float(d))
    return Status{ErrorCode::unsupported, "a relative bound needs f32 or f64 data"};
  return rel_to_abs(bound.value, finite_range(data, n, d), d);
}

namespace {
// The element count of a shape, refused when it overflows or exceeds kMaxCount.
Result<uint64_t> shape_count(std::span<const uint64_t> shape) {
  uint64_t n = 1;
  for (uint64_t s : shape) {
    if (s != 0 && n > kMaxCount / s)
      return Status{ErrorCode::overflow, "a shape of more than " + std::to_string(kMaxCount) +
                                             " elements, the most a frame may hold"};
    n *= s;
  }
  return n;
}
}  // namespace

Status check_count(uint64_t n) {
  if (n <= kMaxCount) return {};
  return {ErrorCode::overflow, std::to_string(n) + " elements exceed the " +
                                   std::to_string(kMaxCount) + " a frame may hold"};
}

size_t Codec::compress_bound(size_t n, Dtype d) const {
  if (!check_count(n).ok()) return std::numeric_limits<size_t>::max();
  return kFrameHeaderSize + max_payload(n, d);
}

Result<size_t> Codec::compress_into(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                                    std::span<std::byte> out, Workspace& ws) const {
  return compress_impl(data, n, {}, d, bound, out, ws);
}

Result<size_t> Codec::compress_into(const void* data, std::span<const uint64_t> shape, Dtype d,
                                    const ErrorBound& bound, std::span<std::byte> out,
                                    Workspace& ws) const {
  auto n = shape_count(shape);
  if (!n.ok()) return n.status();
  return compress_impl(data, size_t(*n), shape, d, bound, out, ws);
}

Status Codec::compress(const void* data, std::span<const uint64_t> shape, Dtype d,
                       const ErrorBound& bound, std::vector<std::byte>& out) const {
  auto n = shape_count(shape);
  if (!n.ok()) {
    out.clear();
    return n.status();
  }
  try {
    out.resize(compress_bound(size_t(*n), d));
  } catch (const std::bad_alloc&) {
    out.clear();
    return {ErrorCode::capacity, "no room for the " + std::to_string(compress_bound(*n, d)) +
                                     "-byte worst case of " + std::to_string(*n) + " elements"};
  }
  auto size = compress_into(data, shape, d, bound, out, thread_workspace());
  if (!size.ok()) {
    out.clear();
    return size.status();
  }
  out.resize(*size);
  return {};
}

Result<size_t> Codec::compress_impl(const void* data, size_t n, std::span<const uint64_t> shape,
                                    Dtype d, const ErrorBound& bound, std::span<std::byte> out,
                                    Workspace& ws) const {
  COMMPRESS_RETURN_IF_ERROR(check_count(n));
  if (!supports(d))
    return Status{ErrorCode::unsupported, std::string("codec ") + std::string(name()) +
                                              " does not support dtype " + dtype_name(d)};
  if (n > 0 && data == nullptr)
    return Status{ErrorCode::invalid_argument, "null input with a non-zero count"};
  COMMPRESS_RETURN_IF_ERROR(check_bound(bound));
  size_t need = compress_bound(n, d);
  if (out.size() < need)
    return Status{ErrorCode::capacity, "output holds " + std::to_string(out.size()) +
                                           " bytes, compress_bound is " + std::to_string(need)};
  // A lossy codec given no loss (or a REL bound that resolves to 0) encodes with an absolute
  // bound of 0: every value exactly, in its own format (docs/format.md).
  double abs_eb = 0;
  if (lossy()) {
    auto r = resolve_abs_bound(data, n, d, bound);
    if (!r.ok()) return r.status();
    abs_eb = *r;
  }
  auto payload = shape.size() > 1
                     ? encode_shaped(data, shape, n, d, abs_eb, out.subspan(kFrameHeaderSize), ws)
                     : encode(data, n, d, abs_eb, out.subspan(kFrameHeaderSize), ws);
  if (!payload.ok()) return payload.status();
  COMMPRESS_ASSERT(*payload <= max_payload(n, d));
  FrameInfo info;
  info.version = kFormatVersion;
  info.codec = id();
  info.dtype = d;
  info.mode = lossy() ? bound.mode : BoundMode::lossless;
  info.count = n;
  info.requested_bound = lossy() ? bound.value : 0.0;
  info.abs_bound = abs_eb;
  info.payload_size = *payload;
  info.param = param();
  detail::write_frame_header(info, out.subspan(kFrameHeaderSize, *payload), out.data());
  return kFrameHeaderSize + *payload;
}

Status Codec::compress(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                       std::vector<std::byte>& out, Workspace& ws) const {
  if (Status st = check_count(n); !st.ok()) {
    out.clear();
    return st;
  }
  try {
    out.resize(compress_bound(n, d));
  } catch (const std::bad_alloc&) {
    out.clear();
    return {ErrorCode::capacity, "no room for the " + std::to_string(compress_bound(n, d)) +
                                     "-byte worst case of " + std::to_string(n) + " elements"};
  }
  auto size = compress_into(data, n, d, bound, out, ws);
  if (!size.ok()) {
    out.clear();
    return size.status();
  }
  out.resize(*size);
  return {};
}

Status Codec::compress(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                       std::vector<std::byte>& out) const {
  return compress(data, n, d, bound, out, thread_workspace());
}

Status Codec::decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d,
                         Workspace& ws) const {
  auto info = detail::inspect_header(frame);
  if (!info.ok()) return info.status();
  return decompress_inspected(frame, *info, out, n, d, ws);
}

Status Codec::decompress_inspected(std::span<const std::byte> frame, const FrameInfo& info,
                                   void* out, size_t n, Dtype d, Workspace& ws) const {
  COMMPRESS_RETURN_IF_ERROR(check_decodable(frame, info, n, d));
  if (n > 0 && out == nullptr) return {ErrorCode::invalid_argument, "null output buffer"};
  return decode(frame.subspan(kFrameHeaderSize), info, out, ws);
}

Status Codec::decompress_pieces(std::span<const std::byte> frame, std::span<std::byte> buffer,
                                const PieceSink& sink, Workspace& ws) const {
  auto info = detail::inspect_header(frame);
  if (!info.ok()) return info.status();
  COMMPRESS_RETURN_IF_ERROR(check_decodable(frame, *info, info->count, info->dtype));
  const size_t elem = dtype_size(info->dtype);
  if (reinterpret_cast<uintptr_t>(buffer.data()) % elem != 0)
    return {ErrorCode::invalid_argument, "a piece buffer must be aligned to its elements"};
  return decode_pieces(frame.subspan(kFrameHeaderSize), *info,
                       buffer.first(buffer.size() / elem * elem), sink, ws);
}

Status Codec::decode_pieces(std::span<const std::byte>, const FrameInfo&, std::span<std::byte>,
                            const PieceSink&, Workspace&) const {
  return {ErrorCode::unsupported,
          "codec " + std::string(name()) + " decodes whole frames only, not in pieces"};
}

Status Codec::check_decodable(std::span<const std::byte> frame, const FrameInfo& info, size_t n,
                              Dtype d) const {
  if (info.codec != id())
    return {ErrorCode::mismatch, "frame was written by codec id " +
                                     std::to_string(int(info.codec)) + ", not by " +
                                     std::string(name())};
  // As inspect() does: a count the payload cannot hold is a damaged frame, whatever the
  // destination.
  COMMPRESS_RETURN_IF_ERROR(check_count_fits(frame.subspan(kFrameHeaderSize), info));
  if (info.dtype != d)
    return {ErrorCode::mismatch, std::string("frame holds ") + dtype_name(info.dtype) +
                                     " but the destination is " + dtype_name(d)};
  if (info.count != n)
    return {ErrorCode::mismatch, "frame holds " + std::to_string(info.count) +
                                     " elements but the destination has room for " +
                                     std::to_string(n)};
  if (!supports(d))
    return {ErrorCode::corrupt_frame, std::string("codec ") + std::string(name()) +
                                          " cannot hold dtype " + dtype_name(d)};
  // A lossless codec's frame promises exactness; any bound in its header is forged.
  if (!lossy() && info.mode != BoundMode::lossless)
    return {ErrorCode::corrupt_frame, std::string("a ") + std::string(name()) +
                                          " frame is lossless but its header says bound mode " +
                                          bound_mode_name(info.mode)};
  if (info.payload_size > max_payload(n, d))
    return {ErrorCode::corrupt_frame, "payload of " + std::to_string(info.payload_size) +
                                          " bytes exceeds this codec's worst case"};
  return {};
}

Status Codec::decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d) const {
  return decompress(frame, out, n, d, thread_workspace());
}

Status decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d) {
  auto info = detail::inspect_header(frame);
  if (!info.ok()) return info.status();
  auto codec = codec_for_id(info->codec);
  if (!codec.ok()) return codec.status();
  return (*codec)->decompress_inspected(frame, *info, out, n, d, thread_workspace());
}

}  // namespace commpress::codec
