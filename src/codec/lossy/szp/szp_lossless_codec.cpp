// "szp-lossless": the szp block machinery on the floats' bit patterns (order-mapped, integer
// Lorenzo, bit-plane coding), so every value, NaN payloads and -0.0 included, comes back bit
// for bit. Payload layout: docs/format/szp.md.
#include "codec/lossy/szp/block_driver.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

class SzpLosslessCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::szp_lossless; }
  std::string_view name() const override { return "szp-lossless"; }
  std::string_view description() const override {
    return "lossless 32-value blocks: order-mapped bits, 1-D Lorenzo, bit-plane coding";
  }
  bool lossy() const override { return false; }
  bool supports(Dtype d) const override { return d == Dtype::f32 || d == Dtype::f64; }

  size_t max_payload(size_t n, Dtype d) const override {
    return d == Dtype::f64 ? szp::max_payload_size<double>(n, szp::Mode::lossless)
                           : szp::max_payload_size<float>(n, szp::Mode::lossless);
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace& ws) const override {
    if (d == Dtype::f64) return encode_as(static_cast<const double*>(data), n, out, ws);
    return encode_as(static_cast<const float*>(data), n, out, ws);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return szp::check_count_fits(payload, info, name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace& ws) const override {
    if (info.dtype == Dtype::f64) return decode_as(payload, info, static_cast<double*>(out), ws);
    return decode_as(payload, info, static_cast<float*>(out), ws);
  }

 private:
  template <class T>
  static Result<size_t> encode_as(const T* x, size_t n, std::span<std::byte> out, Workspace& ws) {
    return szp::encode_payload<T>(x, n, szp::Mode::lossless, out, ws,
                                  [](const T* xb, size_t valid, uint8_t& header, std::byte* body) {
                                    return szp::encode_lossless_block(xb, valid, header, body);
                                  });
  }

  template <class T>
  static Status decode_as(std::span<const std::byte> payload, const FrameInfo& info, T* out,
                          Workspace& ws) {
    return szp::decode_payload<T>(payload, info.count, szp::Mode::lossless, out, ws,
                                  [](uint8_t header, const std::byte* body, size_t valid, T* dst) {
                                    szp::decode_lossless_block(header, body, valid, dst);
                                  });
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(szp_lossless, std::make_unique<SzpLosslessCodec>());

}  // namespace commpress::codec
