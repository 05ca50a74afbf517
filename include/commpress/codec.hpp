// The codec layer: error-bounded lossy and lossless compressors for numeric arrays, all
// producing self-describing frames (docs/format.md), looked up by name in a registry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::codec {

// Values are part of the wire format: never renumber.
enum class Dtype : uint8_t { f32 = 1, f64 = 2, i32 = 3, i64 = 4, u8 = 5 };

enum class BoundMode : uint8_t {
  lossless = 0,
  abs = 1,  // |x - x'| <= value
  rel = 2,  // |x - x'| <= value * (max - min) over the finite elements
};

// Values are part of the wire format: never renumber.
enum class CodecId : uint8_t {
  raw = 1,
  lz4 = 2,
  zstd = 3,
  zlib = 4,
  blosc = 5,
  zfp_reversible = 6,
  szp = 7,
  szp_lossless = 8,
  pred_byte = 9,
  pred_bit = 10,
  zfp_accuracy = 11,
  szp_e = 12,
};

size_t dtype_size(Dtype d);
const char* dtype_name(Dtype d);
Result<Dtype> parse_dtype(std::string_view name);  // "f32", "f64", "i32", "i64", "u8"
bool is_float(Dtype d);
const char* bound_mode_name(BoundMode m);

template <class T>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>) return Dtype::f32;
  else if constexpr (std::is_same_v<T, double>) return Dtype::f64;
  else if constexpr (std::is_same_v<T, int32_t>) return Dtype::i32;
  else if constexpr (std::is_same_v<T, int64_t>) return Dtype::i64;
  else {
    static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, std::byte>, "unsupported dtype");
    return Dtype::u8;
  }
}

struct ErrorBound {
  BoundMode mode = BoundMode::lossless;
  double value = 0.0;

  static ErrorBound lossless() { return {BoundMode::lossless, 0.0}; }
  static ErrorBound absolute(double e) { return {BoundMode::abs, e}; }
  static ErrorBound relative(double e) { return {BoundMode::rel, e}; }
};

// Everything the frame header says (docs/format.md).
struct FrameInfo {
  uint8_t version = 0;
  CodecId codec = CodecId::raw;
  Dtype dtype = Dtype::u8;
  BoundMode mode = BoundMode::lossless;
  uint64_t count = 0;           // elements
  double requested_bound = 0;   // the value the caller gave (ABS value or REL fraction)
  double abs_bound = 0;         // absolute bound actually guaranteed; 0 when lossless
  uint64_t payload_size = 0;    // bytes after the header
  uint32_t param = 0;           // codec-specific (level, inner codec); informational
  uint64_t checksum = 0;

  size_t frame_size() const;
};

inline constexpr uint8_t kFormatVersion = 1;
inline constexpr size_t kFrameHeaderSize = 56;
// The most elements a frame may hold (docs/format.md): small enough that n * dtype size and
// every codec's worst-case payload stay far inside 64 bits and the header's payload limit.
inline constexpr uint64_t kMaxCount = uint64_t{1} << 56;

// overflow when n exceeds kMaxCount: no frame can hold that many elements.
Status check_count(uint64_t n);

// Parses and validates a whole frame (magic, version, enums, exact length, checksum).
Result<FrameInfo> inspect(std::span<const std::byte> frame);
// Reads only the header's declared total frame size (for framing a byte stream).
Result<size_t> peek_frame_size(std::span<const std::byte> header_prefix);
std::string describe(const FrameInfo& info);  // one line per field, human-readable

// Scratch memory reused across calls, so a warmed-up hot path allocates nothing.
// Not thread-safe: one per thread (the convenience overloads use a thread_local one).
class Workspace {
 public:
  std::vector<std::byte>& buffer(size_t slot) { return slots_.at(slot); }

 private:
  std::array<std::vector<std::byte>, 4> slots_;
};

// Receives decoded elements, a piece at a time (how long a piece's bytes stay put:
// Codec::decompress_pieces).
using PieceSink = std::function<Status(std::span<const std::byte>)>;

class Codec {
 public:
  virtual ~Codec() = default;

  virtual CodecId id() const = 0;
  virtual std::string_view name() const = 0;  // unique registry name, e.g. "zstd-3"
  virtual std::string_view description() const = 0;
  virtual bool lossy() const = 0;
  virtual bool supports(Dtype d) const = 0;
  virtual uint32_t param() const { return 0; }

  // Worst-case frame size for n elements, whatever their values (NaN/Inf included).
  // SIZE_MAX when n exceeds kMaxCount (check_count says why), so no buffer is big enough.
  size_t compress_bound(size_t n, Dtype d) const;

  // Writes one frame into out (at least compress_bound bytes); returns the frame size.
  Result<size_t> compress_into(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                               std::span<std::byte> out, Workspace& ws) const;
  // Resizes out to the frame (keeps its capacity, so reuse avoids allocation).
  Status compress(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                  std::vector<std::byte>& out, Workspace& ws) const;
  Status compress(const void* data, size_t n, Dtype d, const ErrorBound& bound,
                  std::vector<std::byte>& out) const;
  // The same for an array of the given shape (C order, slowest dimension first; the count is
  // the product): codecs that predict across dimensions (szp-e) use it and record it in
  // their frames, the others code the values as a flat array.
  Result<size_t> compress_into(const void* data, std::span<const uint64_t> shape, Dtype d,
                               const ErrorBound& bound, std::span<std::byte> out,
                               Workspace& ws) const;
  Status compress(const void* data, std::span<const uint64_t> shape, Dtype d,
                  const ErrorBound& bound, std::vector<std::byte>& out) const;
  template <class T>
  Result<std::vector<std::byte>> compress(std::span<const T> data, const ErrorBound& bound) const {
    std::vector<std::byte> out;
    Status st = compress(data.data(), data.size(), dtype_of<T>(), bound, out);
    if (!st.ok()) return st;
    return out;
  }

  // Decodes a frame of this codec into exactly n elements of dtype d.
  Status decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d,
                    Workspace& ws) const;
  Status decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d) const;
  template <class T>
  Status decompress(std::span<const std::byte> frame, std::span<T> out) const {
    return decompress(frame, out.data(), out.size(), dtype_of<T>());
  }
  // Decodes a frame through a bounded buffer, so a frame of any size decodes in that
  // memory (a file written as it is decoded): consecutive runs of its elements are decoded
  // (with OpenMP's threads, as decompress() decodes) into the halves of `buffer` (aligned
  // for the frame's dtype) in turn and handed to sink in order. A piece's bytes stay as
  // they are until sink returns from the next piece, so a sink may write one piece while
  // the next decodes. The frame is checked as decompress() checks it before the first
  // piece; a sink error ends the decode and is returned as it is. Only where
  // decodes_in_pieces() (unsupported otherwise, before any piece).
  Status decompress_pieces(std::span<const std::byte> frame, std::span<std::byte> buffer,
                           const PieceSink& sink, Workspace& ws) const;

  // --- implemented by each codec -------------------------------------------------------
  // Largest payload (header excluded) encode may write for n elements (n <= kMaxCount).
  virtual size_t max_payload(size_t n, Dtype d) const = 0;
  // Refuses (corrupt_frame), without decoding and before anyone allocates info.count
  // elements, a payload too small for the count by this format's densest possible coding,
  // or whose own declared sizes disagree with the count. inspect() calls it on every frame.
  virtual Status check_count_fits(std::span<const std::byte> payload,
                                  const FrameInfo& info) const = 0;
  // Encodes n elements into out (capacity >= max_payload). abs_bound is the absolute bound
  // to honour (0 for lossless codecs). Returns payload bytes written.
  virtual Result<size_t> encode(const void* data, size_t n, Dtype d, double abs_bound,
                                std::span<std::byte> out, Workspace& ws) const = 0;
  // encode() for an array of this shape (product n, at least two dimensions other than 1).
  // Codecs whose format records a shape override it; the default codes the flat array.
  virtual Result<size_t> encode_shaped(const void* data, std::span<const uint64_t> shape,
                                       size_t n, Dtype d, double abs_bound,
                                       std::span<std::byte> out, Workspace& ws) const {
    (void)shape;
    return encode(data, n, d, abs_bound, out, ws);
  }
  // Decodes a payload whose header was already validated; out holds info.count elements.
  virtual Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                        Workspace& ws) const = 0;
  // Whether decode_pieces works: the payload decodes in runs of elements, in order.
  virtual bool decodes_in_pieces() const { return false; }
  // decode() in pieces, as decompress_pieces describes; buffer holds whole elements.
  virtual Status decode_pieces(std::span<const std::byte> payload, const FrameInfo& info,
                               std::span<std::byte> buffer, const PieceSink& sink,
                               Workspace& ws) const;

 private:
  // decompress() once the header is parsed and its checksum verified (the frame's checksum
  // covers the whole payload: it is computed once per decoded frame, also through the
  // dispatching decompress below).
  Result<size_t> compress_impl(const void* data, size_t n, std::span<const uint64_t> shape,
                               Dtype d, const ErrorBound& bound, std::span<std::byte> out,
                               Workspace& ws) const;
  Status decompress_inspected(std::span<const std::byte> frame, const FrameInfo& info, void* out,
                              size_t n, Dtype d, Workspace& ws) const;
  // Everything decompress_inspected checks before it decodes.
  Status check_decodable(std::span<const std::byte> frame, const FrameInfo& info, size_t n,
                         Dtype d) const;
  friend Status decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d);
};

// Registry ---------------------------------------------------------------------------------
const Codec* find_codec(std::string_view name);   // nullptr when unknown
Result<const Codec*> get_codec(std::string_view name);  // error lists the known names
// The decoder for frames with this id (any registered codec of that id can decode them).
Result<const Codec*> codec_for_id(CodecId id);
std::vector<const Codec*> list_codecs();  // ordered by id, then name

// Decodes any frame, dispatching on its codec id.
Status decompress(std::span<const std::byte> frame, void* out, size_t n, Dtype d);
template <class T>
Status decompress(std::span<const std::byte> frame, std::span<T> out) {
  return decompress(frame, out.data(), out.size(), dtype_of<T>());
}

// The range of the finite elements of a float array (NaN and Inf ignored).
struct ValueRange {
  double min = 0;
  double max = 0;
  bool any_finite = false;
  double max_abs() const;
};
ValueRange finite_range(const void* data, size_t n, Dtype d);
// The same, and the same pass copies the n elements to `copy` (not overlapping data): where
// the data must be copied anyway, its range costs no read of its own.
ValueRange finite_range_copy(const void* data, size_t n, Dtype d, void* copy);
// The absolute bound a REL fraction means for data of dtype d and this range: rel x (max - min)
// rounded toward zero, never above the true product (docs/format.md). 0 where that is 0 (a
// constant array, no finite value) or below d's smallest normal number: the data must then
// travel exactly, which every lossy codec does for an absolute bound of 0. The one rule every
// codec and every collective uses, so ranks agreeing on the range agree on the bound.
double rel_to_abs(double rel, const ValueRange& range, Dtype d);

// OK for a lossless bound and for ABS/REL with a positive finite value; the error names the
// bad value (NaN, Inf, 0, negative) otherwise.
Status check_bound(const ErrorBound& bound);

// The absolute bound a frame will guarantee for this data (REL resolved against the range
// of the finite values). Lossless bounds give 0.
Result<double> resolve_abs_bound(const void* data, size_t n, Dtype d, const ErrorBound& bound);

namespace detail {
// Registration hook used by COMMPRESS_REGISTER_CODEC; owns the codec for the process life.
bool register_codec(std::unique_ptr<Codec> codec);
}  // namespace detail

}  // namespace commpress::codec

// Registers a codec at load time (the library is shared, so static initializers always run):
//   COMMPRESS_REGISTER_CODEC(zstd3, std::make_unique<ZstdLossless>(3));
#define COMMPRESS_REGISTER_CODEC(tag, make_expr)                          \
  namespace {                                                             \
  [[maybe_unused]] const bool commpress_registered_##tag =                \
      ::commpress::codec::detail::register_codec(make_expr);              \
  }
