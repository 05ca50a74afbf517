// "zfp": zfp fixed-accuracy mode (tolerance = the frame's absolute bound) on the array as one
// 1-D field, made to keep the bound for every element. zfp's accuracy mode usually, but not
// provably, stays within the tolerance, and it cannot carry NaN or Inf; so the encoder decodes
// its own stream and records every element that misses the bound (and every non-finite one)
// as an exception carried bit-exactly. When zfp plus exceptions would outgrow the raw array,
// the payload is the raw array instead. Layout: docs/format/zfp.md.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "codec/format/count_fits.hpp"
#include "codec/lossless/zfp_stream_1d.hpp"
#include "commpress/codec.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec {
namespace {

// reversible: the stream of a frame of bound 0. Named apart from zfp so that a bound forged
// between 0 and positive is caught instead of decoding one mode's stream as the other's.
enum class PayloadMode : uint8_t { zfp = 0, raw = 1, reversible = 2 };

constexpr size_t kPrefixBytes = 8;           // mode byte + 7 reserved zero bytes
constexpr size_t kStreamOffset = 16;         // prefix + u64 stream length
constexpr size_t kIndexBytes = sizeof(uint64_t);

template <class T>
bool has_nonfinite(const T* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return true;
  return false;
}

// zfp spreads a NaN or Inf over its whole block; the previous finite value keeps the block
// smooth instead (the true value travels as an exception anyway).
template <class T>
void copy_finite(const T* x, size_t n, T* dst) {
  T last = T(0);
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) last = x[i];
    dst[i] = std::isfinite(x[i]) ? x[i] : last;
  }
}

template <class T>
bool within(T x, T y, double bound) {
  return std::isfinite(x) && std::fabs(double(x) - double(y)) <= bound;
}

// Appends (index, value) for every element of x that y misses, stopping at `limit` bytes of
// payload. Returns the new payload size, or 0 when the exceptions do not fit.
template <class T>
size_t write_exceptions(const T* x, const T* y, size_t n, double bound, std::byte* out,
                        size_t pos, size_t limit, uint64_t& count) {
  count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (within(x[i], y[i], bound)) continue;
    if (pos + kIndexBytes + sizeof(T) > limit) return 0;
    core::store_le<uint64_t>(out + pos, i);
    std::memcpy(out + pos + kIndexBytes, &x[i], sizeof(T));
    pos += kIndexBytes + sizeof(T);
    ++count;
  }
  return pos;
}

// A bound of 0 asks for every value exactly: zfp's reversible mode is the one that gives it.
detail::ZfpMode mode_for(double abs_bound) {
  return abs_bound > 0 ? detail::ZfpMode::accuracy(abs_bound) : detail::ZfpMode::lossless();
}

std::vector<std::byte>& sized(std::vector<std::byte>& buf, size_t bytes) {
  if (buf.size() < bytes) buf.resize(bytes);
  return buf;
}

class ZfpAccuracyCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::zfp_accuracy; }
  std::string_view name() const override { return "zfp"; }
  std::string_view description() const override {
    return "zfp fixed-accuracy mode, bound enforced element-wise by exceptions";
  }
  bool lossy() const override { return true; }
  bool supports(Dtype d) const override { return is_float(d); }

  // The zfp stream is written in place before its size is known; exceptions are written only
  // while the payload stays within the raw fallback's size.
  size_t max_payload(size_t n, Dtype d) const override {
    size_t zfp = kStreamOffset + std::max(detail::zfp_max_stream_bytes(n, d, mode_for(1)),
                                          detail::zfp_max_stream_bytes(n, d, mode_for(0)));
    return std::max(zfp, kPrefixBytes + n * dtype_size(d));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double abs_bound,
                        std::span<std::byte> out, Workspace& ws) const override {
    if (d == Dtype::f32) return encode_typed(static_cast<const float*>(data), n, abs_bound, out, ws);
    return encode_typed(static_cast<const double*>(data), n, abs_bound, out, ws);
  }

  // The smaller of the two modes' least: raw values, or prefix, stream and exception count.
  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    const uint64_t raw = kPrefixBytes + info.count * dtype_size(info.dtype);
    const uint64_t stream = kStreamOffset + detail::zfp_min_stream_bytes(info.count) +
                            sizeof(uint64_t);
    return detail::require_payload(payload.size(), std::min(raw, stream), info, name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace& ws) const override {
    if (info.dtype == Dtype::f32) return decode_typed(payload, info, static_cast<float*>(out), ws);
    return decode_typed(payload, info, static_cast<double*>(out), ws);
  }

 private:
  static size_t write_raw(const void* data, size_t bytes, std::span<std::byte> out) {
    std::memset(out.data(), 0, kPrefixBytes);
    out[0] = std::byte{uint8_t(PayloadMode::raw)};
    if (bytes) std::memcpy(out.data() + kPrefixBytes, data, bytes);
    return kPrefixBytes + bytes;
  }

  template <class T>
  Result<size_t> encode_typed(const T* x, size_t n, double abs_bound, std::span<std::byte> out,
                              Workspace& ws) const {
    const size_t raw_size = kPrefixBytes + n * sizeof(T);
    if (n == 0) return write_raw(x, 0, out);
    const T* src = x;
    if (has_nonfinite(x, n)) {
      T* finite = reinterpret_cast<T*>(sized(ws.buffer(1), n * sizeof(T)).data());
      copy_finite(x, n, finite);
      src = finite;
    }
    auto mode = mode_for(abs_bound);
    auto stream = detail::zfp_encode_1d(src, n, dtype_of<T>(), mode, out.subspan(kStreamOffset));
    if (!stream.ok()) return stream.status();
    // Check what the decoder will reconstruct, through the decoder's own path.
    T* y = reinterpret_cast<T*>(sized(ws.buffer(2), n * sizeof(T)).data());
    Status st = detail::zfp_decode_1d(out.subspan(kStreamOffset, *stream), n, dtype_of<T>(), mode,
                                      y, ws.buffer(0));
    if (!st.ok()) return Status{ErrorCode::internal, "zfp cannot decode its own stream: " + st.message()};
    size_t count_at = kStreamOffset + *stream;
    uint64_t count = 0;
    size_t end = count_at + sizeof(uint64_t) <= raw_size
                     ? write_exceptions(x, y, n, abs_bound, out.data(), count_at + sizeof(uint64_t),
                                        raw_size, count)
                     : 0;
    if (end == 0) return write_raw(x, n * sizeof(T), out);
    std::memset(out.data(), 0, kPrefixBytes);
    out[0] = std::byte{uint8_t(abs_bound > 0 ? PayloadMode::zfp : PayloadMode::reversible)};
    core::store_le<uint64_t>(out.data() + kPrefixBytes, *stream);
    core::store_le<uint64_t>(out.data() + count_at, count);
    return end;
  }

  template <class T>
  Status decode_typed(std::span<const std::byte> payload, const FrameInfo& info, T* out,
                      Workspace& ws) const {
    const size_t n = info.count;
    if (!(info.abs_bound >= 0))
      return {ErrorCode::corrupt_frame, "zfp frame carries a negative error bound"};
    core::ByteReader in(payload);
    uint8_t mode = 0;
    std::span<const std::byte> reserved;
    COMMPRESS_RETURN_IF_ERROR(in.read(mode, "zfp payload mode"));
    COMMPRESS_RETURN_IF_ERROR(in.take(kPrefixBytes - 1, reserved, "zfp payload prefix"));
    for (std::byte b : reserved)
      if (b != std::byte{0}) return {ErrorCode::corrupt_frame, "zfp payload reserved bytes are not zero"};
    if (mode == uint8_t(PayloadMode::raw)) {
      if (in.remaining() != n * sizeof(T))
        return {ErrorCode::corrupt_frame, "raw zfp payload has " + std::to_string(in.remaining()) +
                                              " bytes, expected " + std::to_string(n * sizeof(T))};
      if (n) std::memcpy(out, payload.data() + kPrefixBytes, n * sizeof(T));
      return {};
    }
    const uint8_t expected = uint8_t(info.abs_bound > 0 ? PayloadMode::zfp : PayloadMode::reversible);
    if (mode != expected)
      return {ErrorCode::corrupt_frame, "zfp payload mode " + std::to_string(mode) +
                                            " does not fit the frame's bound " +
                                            std::to_string(info.abs_bound) + " (expected mode " +
                                            std::to_string(expected) + ")"};
    uint64_t stream_bytes = 0;
    COMMPRESS_RETURN_IF_ERROR(in.read(stream_bytes, "zfp stream length"));
    if (stream_bytes > in.remaining())
      return {ErrorCode::truncated, "zfp stream length " + std::to_string(stream_bytes) +
                                        " exceeds the " + std::to_string(in.remaining()) +
                                        " bytes left"};
    std::span<const std::byte> stream;
    COMMPRESS_RETURN_IF_ERROR(in.take(size_t(stream_bytes), stream, "zfp stream"));
    COMMPRESS_RETURN_IF_ERROR(detail::zfp_decode_1d(stream, n, dtype_of<T>(),
                                                    mode_for(info.abs_bound),
                                                    out, ws.buffer(0)));
    uint64_t count = 0;
    COMMPRESS_RETURN_IF_ERROR(in.read(count, "exception count"));
    const size_t record = kIndexBytes + sizeof(T);
    if (count > n || in.remaining() != count * record)
      return {ErrorCode::corrupt_frame, std::to_string(count) + " exceptions do not match the " +
                                            std::to_string(in.remaining()) +
                                            " bytes left for " + std::to_string(n) + " values"};
    const std::byte* p = payload.data() + in.position();
    for (uint64_t k = 0, prev = 0; k < count; ++k, p += record) {
      uint64_t index = core::load_le<uint64_t>(p);
      if (index >= n || (k > 0 && index <= prev))
        return {ErrorCode::corrupt_frame, "exception index " + std::to_string(index) +
                                              " is out of order or past " + std::to_string(n)};
      std::memcpy(out + index, p + kIndexBytes, sizeof(T));
      prev = index;
    }
    return {};
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(zfp_accuracy, std::make_unique<ZfpAccuracyCodec>());

}  // namespace commpress::codec
