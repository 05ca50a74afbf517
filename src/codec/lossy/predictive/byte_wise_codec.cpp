// "pred-byte": error-bounded linear prediction with one code byte per element. A value one
// of the four polynomial orders reconstructs within the bound costs its code byte; any other
// value costs the code byte plus the value verbatim. Cheap to run, ratio at most
// sizeof(T):1. Layout in docs/format/predictive.md.
#include <cmath>
#include <string>

#include "codec/lossy/predictive/difference_preprocess.hpp"
#include "codec/lossy/predictive/predictive_codec.hpp"
#include "codec/lossy/predictive/predictive_loop.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::predictive {
namespace {

// Codes 0..3 name the predictor order; this one marks a value stored verbatim.
constexpr uint8_t kVerbatimCode = 4;

template <class T>
struct CodeByteSink {
  std::byte* code;
  std::byte* verbatim_at;

  void predicted(int order) { *code++ = std::byte(order); }
  void verbatim(T x) {
    *code++ = std::byte{kVerbatimCode};
    core::store_le<T>(verbatim_at, x);
    verbatim_at += sizeof(T);
  }
  // The verbatim value is exact, so the decoder's history gets the exact shifted value.
  T miss(T x, T shifted) {
    verbatim(x);
    return shifted;
  }
};

// Reads codes and verbatim values already validated against each other by decode().
template <class T>
struct CodeByteSource {
  const std::byte* code;
  const std::byte* verbatim_at;

  Piece<T> next() {
    const auto c = std::to_integer<uint8_t>(*code++);
    if (c < kVerbatimCode) return {Piece<T>::Kind::predicted, c, T(0)};
    const T x = core::load_le<T>(verbatim_at);
    verbatim_at += sizeof(T);
    return {Piece<T>::Kind::verbatim, 0, x};
  }
  Status error(size_t i) const {
    return {ErrorCode::internal, "unvalidated code byte at element " + std::to_string(i)};
  }
};

struct ByteWiseFormat {
  static constexpr CodecId kId = CodecId::pred_byte;
  static constexpr std::string_view kName = "pred-byte";
  static constexpr std::string_view kDescription =
      "error-bounded polynomial prediction (orders 0-3), one code byte per value, "
      "unpredictable values verbatim";

  template <class T>
  static size_t max_payload(size_t n) {
    return sizeof(T) + n + n * sizeof(T);
  }

  // The offset and one code byte per element.
  template <class T>
  static uint64_t min_payload(uint64_t n) {
    return sizeof(T) + n;
  }

  template <class T>
  static Result<size_t> encode(const T* x, size_t n, double e, std::span<std::byte> out) {
    const T offset = difference_offset(x, n);
    core::store_le<T>(out.data(), offset);
    const auto sink = encode_elements(
        x, n, offset, e, CodeByteSink<T>{out.data() + sizeof(T), out.data() + sizeof(T) + n});
    return size_t(sink.verbatim_at - out.data());
  }

  // The bound only steers the encoder's choices: nothing in the payload records it, so the
  // header's bound cannot be checked here beyond the shell's mode and sign checks.
  template <class T>
  static Status decode(std::span<const std::byte> payload, size_t n, double, T* out) {
    core::ByteReader in(payload);
    T offset = T(0);
    COMMPRESS_RETURN_IF_ERROR(in.read(offset, "pred-byte offset"));
    if (!std::isfinite(offset))
      return {ErrorCode::corrupt_frame, "pred-byte offset is not finite"};
    std::span<const std::byte> codes, verbatim;
    COMMPRESS_RETURN_IF_ERROR(in.take(n, codes, "pred-byte code bytes"));
    size_t verbatim_count = 0;
    for (size_t i = 0; i < n; ++i) {
      const auto c = std::to_integer<uint8_t>(codes[i]);
      if (c > kVerbatimCode)
        return {ErrorCode::corrupt_frame, "pred-byte element " + std::to_string(i) +
                                              " has code " + std::to_string(c) +
                                              " (valid codes are 0 to 4)"};
      verbatim_count += c == kVerbatimCode;
    }
    COMMPRESS_RETURN_IF_ERROR(
        in.take(verbatim_count * sizeof(T), verbatim, "pred-byte verbatim values"));
    if (in.remaining() != 0)
      return {ErrorCode::corrupt_frame, "pred-byte payload has " +
                                            std::to_string(in.remaining()) +
                                            " bytes after its last verbatim value"};
    CodeByteSource<T> source{codes.data(), verbatim.data()};
    return decode_elements(source, n, offset, out);
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(pred_byte, std::make_unique<PredictiveCodec<ByteWiseFormat>>());

}  // namespace commpress::codec::predictive
