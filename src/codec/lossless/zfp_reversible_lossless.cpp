// "zfp-reversible": zfp's reversible (lossless) mode on the array as one 1-D field. The
// payload is the bare zfp stream (docs/format/zfp.md); dtype and count come from the frame.
#include "codec/format/count_fits.hpp"
#include "codec/lossless/zfp_stream_1d.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

class ZfpReversibleLossless final : public Codec {
 public:
  CodecId id() const override { return CodecId::zfp_reversible; }
  std::string_view name() const override { return "zfp-reversible"; }
  std::string_view description() const override {
    return "zfp reversible mode (lossless, 1-D blocks of 4)";
  }
  bool lossy() const override { return false; }
  bool supports(Dtype d) const override { return detail::zfp_supports(d, kMode); }

  size_t max_payload(size_t n, Dtype d) const override {
    return detail::zfp_max_stream_bytes(n, d, kMode);
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    return detail::zfp_encode_1d(data, n, d, kMode, out);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return detail::require_payload(payload.size(), detail::zfp_min_stream_bytes(info.count), info,
                                   name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace& ws) const override {
    return detail::zfp_decode_1d(payload, info.count, info.dtype, kMode, out, ws.buffer(0));
  }

 private:
  static constexpr detail::ZfpMode kMode{true, 0.0};
};

}  // namespace

COMMPRESS_REGISTER_CODEC(zfp_reversible, std::make_unique<ZfpReversibleLossless>());

}  // namespace commpress::codec
