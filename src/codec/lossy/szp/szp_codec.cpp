// "szp": error-bounded lossy codec for f32/f64 on independent 32-value blocks (quantize to
// multiples of 2*eb, 1-D Lorenzo inside the block, fixed-length sign + bit-plane coding).
// Payload layout: docs/format/szp.md.
#include <string>

#include "codec/lossy/szp/block_driver.hpp"
#include "codec/lossy/szp/exact_blocks.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

class SzpCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::szp; }
  std::string_view name() const override { return "szp"; }
  std::string_view description() const override {
    return "error-bounded 32-value blocks: linear quantizer, 1-D Lorenzo, bit-plane coding";
  }
  bool lossy() const override { return true; }
  bool supports(Dtype d) const override { return d == Dtype::f32 || d == Dtype::f64; }

  size_t max_payload(size_t n, Dtype d) const override {
    return d == Dtype::f64 ? szp::max_payload_size<double>(n, szp::Mode::lossy)
                           : szp::max_payload_size<float>(n, szp::Mode::lossy);
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double abs_bound,
                        std::span<std::byte> out, Workspace& ws) const override {
    if (d == Dtype::f64) return encode_as(static_cast<const double*>(data), n, abs_bound, out, ws);
    return encode_as(static_cast<const float*>(data), n, abs_bound, out, ws);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return szp::check_count_fits(payload, info, name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace& ws) const override {
    COMMPRESS_RETURN_IF_ERROR(check_decodable_bound(payload, info));
    if (info.dtype == Dtype::f64)
      return decode_as(payload, info, static_cast<double*>(out), ws);
    return decode_as(payload, info, static_cast<float*>(out), ws);
  }

  bool decodes_in_pieces() const override { return true; }

  Status decode_pieces(std::span<const std::byte> payload, const FrameInfo& info,
                       std::span<std::byte> buffer, const PieceSink& sink,
                       Workspace& ws) const override {
    COMMPRESS_RETURN_IF_ERROR(check_decodable_bound(payload, info));
    if (info.dtype == Dtype::f64) return pieces_as<double>(payload, info, buffer, sink, ws);
    return pieces_as<float>(payload, info, buffer, sink, ws);
  }

 private:
  static Status check_decodable_bound(std::span<const std::byte> payload, const FrameInfo& info) {
    if (!(info.abs_bound >= 0) || !std::isfinite(info.abs_bound))
      return {ErrorCode::corrupt_frame, "szp frame needs a finite absolute bound >= 0, got " +
                                            std::to_string(info.abs_bound)};
    if (info.abs_bound == 0) return szp::check_exact_blocks(payload, info.count);
    return {};
  }

  template <class T>
  static Result<size_t> encode_as(const T* x, size_t n, double abs_bound,
                                  std::span<std::byte> out, Workspace& ws) {
    const szp::LinearQuantizer<T> qz(abs_bound);
    return szp::encode_payload<T>(
        x, n, szp::Mode::lossy, out, ws,
        [&qz](const T* xb, size_t valid, uint8_t& header, std::byte* body) {
          return szp::encode_lossy_block(xb, valid, qz, header, body);
        });
  }

  template <class T>
  static auto block_decoder(const szp::LinearQuantizer<T>& qz) {
    return [&qz](uint8_t header, const std::byte* body, size_t valid, T* dst) {
      szp::decode_lossy_block(header, body, valid, qz, dst);
    };
  }

  template <class T>
  static Status decode_as(std::span<const std::byte> payload, const FrameInfo& info, T* out,
                          Workspace& ws) {
    const szp::LinearQuantizer<T> qz(info.abs_bound);
    return szp::decode_payload<T>(payload, info.count, szp::Mode::lossy, out, ws,
                                  block_decoder(qz));
  }

  template <class T>
  static Status pieces_as(std::span<const std::byte> payload, const FrameInfo& info,
                          std::span<std::byte> buffer, const PieceSink& sink, Workspace& ws) {
    const szp::LinearQuantizer<T> qz(info.abs_bound);
    const std::span<T> values(reinterpret_cast<T*>(buffer.data()), buffer.size() / sizeof(T));
    return szp::decode_payload_pieces<T>(payload, info.count, szp::Mode::lossy, values, sink, ws,
                                         block_decoder(qz));
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(szp, std::make_unique<SzpCodec>());

}  // namespace commpress::codec
