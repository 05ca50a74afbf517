// The Codec shell both predictive formats share: f32/f64 dispatch, argument checks and the
// capacity contract. A Format supplies its identity and four templates over T:
//   size_t max_payload<T>(n); uint64_t min_payload<T>(n);
//   Result<size_t> encode<T>(x, n, e, out); Status decode<T>(payload, n, e, out),
// where decode refuses a payload that disagrees with the header's absolute bound e.
#pragma once

#include <cmath>
#include <string>

#include "codec/format/count_fits.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec::predictive {

template <class Format>
class PredictiveCodec final : public Codec {
 public:
  CodecId id() const override { return Format::kId; }
  std::string_view name() const override { return Format::kName; }
  std::string_view description() const override { return Format::kDescription; }
  bool lossy() const override { return true; }
  bool supports(Dtype d) const override { return d == Dtype::f32 || d == Dtype::f64; }

  size_t max_payload(size_t n, Dtype d) const override {
    if (d == Dtype::f32) return Format::template max_payload<float>(n);
    if (d == Dtype::f64) return Format::template max_payload<double>(n);
    return 0;
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double abs_bound,
                        std::span<std::byte> out, Workspace&) const override {
    if (!supports(d))
      return Status{ErrorCode::unsupported,
                    std::string(Format::kName) + " does not support dtype " + dtype_name(d)};
    if (!(abs_bound >= 0) || !std::isfinite(abs_bound))  // 0: every value exactly
      return Status{ErrorCode::invalid_argument,
                    std::string(Format::kName) + " needs a finite absolute bound >= 0, got " +
                        std::to_string(abs_bound)};
    const size_t need = max_payload(n, d);
    if (out.size() < need)
      return Status{ErrorCode::capacity, "payload buffer holds " + std::to_string(out.size()) +
                                             " bytes, " + std::string(Format::kName) +
                                             " may need " + std::to_string(need)};
    if (d == Dtype::f32)
      return Format::template encode<float>(static_cast<const float*>(data), n, abs_bound, out);
    return Format::template encode<double>(static_cast<const double*>(data), n, abs_bound, out);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    const uint64_t least = info.dtype == Dtype::f64 ? Format::template min_payload<double>(info.count)
                                                    : Format::template min_payload<float>(info.count);
    return detail::require_payload(payload.size(), least, info, name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    // The encoder writes the mode asked for and the bound it kept: positive under abs or rel,
    // or 0 (every value exact) under rel or lossless. A frame with neither was not written by
    // it, and decoding it would promise a bound nobody checked.
    const bool exact = info.abs_bound == 0 && info.mode != BoundMode::abs;
    const bool bounded = info.abs_bound > 0 && info.mode != BoundMode::lossless;
    if (!std::isfinite(info.abs_bound) || !(exact || bounded))
      return {ErrorCode::corrupt_frame,
              std::string(Format::kName) + " frames need a positive absolute bound under an abs "
                                           "or rel mode, or a bound of 0 under rel or lossless; "
                                           "this one says " +
                  bound_mode_name(info.mode) + " and " + std::to_string(info.abs_bound)};
    if (info.dtype == Dtype::f32)
      return Format::template decode<float>(payload, info.count, info.abs_bound,
                                            static_cast<float*>(out));
    if (info.dtype == Dtype::f64)
      return Format::template decode<double>(payload, info.count, info.abs_bound,
                                             static_cast<double*>(out));
    return {ErrorCode::corrupt_frame,
            std::string(Format::kName) + " frames cannot hold dtype " + dtype_name(info.dtype)};
  }
};

}  // namespace commpress::codec::predictive
