// "pred-bit": error-bounded linear prediction into a bit stream. A predictable value costs
// 3 bits (1 + predictor order); any other value costs 2 bits plus either its shifted form
// with the mantissa rounded to the bits the bound needs (exponent + b bits) or, when even
// that cannot meet the bound, the element verbatim. No position index is needed: every piece
// says how long it is. Layout in docs/format/predictive.md.
#include <cmath>
#include <string>

#include "codec/lossy/predictive/bit_stream.hpp"
#include "codec/lossy/predictive/difference_preprocess.hpp"
#include "codec/lossy/predictive/exact_bound.hpp"
#include "codec/lossy/predictive/mantissa_truncation.hpp"
#include "codec/lossy/predictive/predictive_codec.hpp"
#include "codec/lossy/predictive/predictive_loop.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::predictive {
namespace {

// Piece prefixes, first bit first. A shifted value's sign bit is always 0, so the bit after
// the leading 0 is free to mark "the element verbatim" instead.
constexpr uint64_t kPredictedBit = 1;      // 1, then the order in 2 bits
constexpr uint64_t kTruncatedPrefix = 0;   // 0 0, then exponent field and b mantissa bits
constexpr uint64_t kVerbatimPrefix = 2;    // 0 1, then the element's bits
constexpr unsigned kPrefixBits = 2;
constexpr unsigned kOrderBits = 2;

template <class T>
struct BitSink {
  using L = FloatLayout<T>;
  BitWriter out;
  MantissaTruncation<T> truncation;
  T offset;
  double e;

  void predicted(int order) { out.put(kPredictedBit | uint64_t(order) << 1, 1 + kOrderBits); }

  void verbatim(T x) {
    out.put(kVerbatimPrefix, kPrefixBits);
    out.put_wide(to_bits(x), L::kWidth);
  }

  T miss(T x, T shifted) {
    if ((to_bits(shifted) >> (L::kWidth - 1)) == 0) {
      const auto t = truncation.truncate(shifted);
      if (t.ok) {
        const T rebuilt = MantissaTruncation<T>::rebuild(t.exponent_field, t.kept, t.bits);
        // The rounding of the shift itself can still push the result past the bound.
        if (within_bound(double(x), double(from_difference(rebuilt, offset)), e)) {
          out.put(kTruncatedPrefix, kPrefixBits);
          out.put(t.exponent_field, L::kExponentBits);
          out.put_wide(t.kept, unsigned(t.bits));
          return rebuilt;
        }
      }
    }
    verbatim(x);
    return shifted;
  }
};

template <class T>
struct BitSource {
  using L = FloatLayout<T>;
  BitReader& in;
  MantissaTruncation<T> truncation;

  Piece<T> next() {
    using Kind = typename Piece<T>::Kind;
    if (in.get(1) == kPredictedBit) return {Kind::predicted, int(in.get(kOrderBits)), T(0)};
    if (in.get(1) == 1) return {Kind::verbatim, 0, from_bits<T>(in.get_wide(L::kWidth))};
    const auto exp = typename L::Bits(in.get(L::kExponentBits));
    // The encoder only truncates finite values; an Inf/NaN exponent here is damage.
    if (exp == MantissaTruncation<T>::kExponentMask) return {Kind::invalid, 0, T(0)};
    const int b = truncation.kept_bits(exp);
    const auto kept = typename L::Bits(in.get_wide(unsigned(b)));
    return {Kind::shifted, 0, MantissaTruncation<T>::rebuild(exp, kept, b)};
  }

  Status error(size_t i) const {
    if (!in.ok())
      return {ErrorCode::truncated, "pred-bit stream ends inside element " + std::to_string(i)};
    return {ErrorCode::corrupt_frame, "pred-bit element " + std::to_string(i) +
                                          " is a truncated value with a non-finite exponent"};
  }
};

struct BitWiseFormat {
  static constexpr CodecId kId = CodecId::pred_bit;
  static constexpr std::string_view kName = "pred-bit";
  static constexpr std::string_view kDescription =
      "error-bounded polynomial prediction (orders 0-3) into a bit stream: 3 bits per "
      "predicted value, bound-truncated mantissas otherwise";

  template <class T>
  static size_t max_payload(size_t n) {
    // Worst piece: prefix plus the element verbatim.
    return sizeof(T) + sizeof(int16_t) + (n * (kPrefixBits + FloatLayout<T>::kWidth) + 7) / 8;
  }

  // The head and a 3-bit predicted piece per element.
  template <class T>
  static uint64_t min_payload(uint64_t n) {
    return sizeof(T) + sizeof(int16_t) + detail::ceil_div(n * (1 + kOrderBits), 8);
  }

  template <class T>
  static Result<size_t> encode(const T* x, size_t n, double e, std::span<std::byte> out) {
    const T offset = difference_offset(x, n);
    const int n_exp = bound_exponent(e);
    core::store_le<T>(out.data(), offset);
    core::store_le<int16_t>(out.data() + sizeof(T), int16_t(n_exp));
    const size_t head = sizeof(T) + sizeof(int16_t);
    auto sink = encode_elements(x, n, offset, e,
                                BitSink<T>{BitWriter(out.subspan(head)),
                                           MantissaTruncation<T>(n_exp), offset, e});
    auto body = sink.out.finish();
    if (!body.ok()) return body.status();
    return head + *body;
  }

  template <class T>
  static Status decode(std::span<const std::byte> payload, size_t n, double e, T* out) {
    core::ByteReader head(payload);
    T offset = T(0);
    int16_t n_exp = 0;
    COMMPRESS_RETURN_IF_ERROR(head.read(offset, "pred-bit offset"));
    COMMPRESS_RETURN_IF_ERROR(head.read(n_exp, "pred-bit bound exponent"));
    if (!std::isfinite(offset))
      return {ErrorCode::corrupt_frame, "pred-bit offset is not finite"};
    if (n_exp < kMinBoundExponent || n_exp > kMaxBoundExponent)
      return {ErrorCode::corrupt_frame, "pred-bit bound exponent " + std::to_string(n_exp) +
                                            " is outside [" + std::to_string(kMinBoundExponent) +
                                            ", " + std::to_string(kMaxBoundExponent) + "]"};
    // nb is derived from the bound the encoder kept: a header bound from another power of two
    // was not the one this payload was written for.
    if (n_exp != bound_exponent(e))
      return {ErrorCode::corrupt_frame, "pred-bit bound exponent " + std::to_string(n_exp) +
                                            " does not match the header's absolute bound " +
                                            std::to_string(e) + " (exponent " +
                                            std::to_string(bound_exponent(e)) + ")"};
    BitReader bits(payload.subspan(head.position()));
    BitSource<T> source{bits, MantissaTruncation<T>(n_exp)};
    COMMPRESS_RETURN_IF_ERROR(decode_elements(source, n, offset, out));
    return bits.finish();
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(pred_bit, std::make_unique<PredictiveCodec<BitWiseFormat>>());

}  // namespace commpress::codec::predictive
