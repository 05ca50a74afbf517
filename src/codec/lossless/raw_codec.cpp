// "raw": the bytes as they are, in a frame. The reference every other codec is measured
// against, and what the communication layer sends when compression does not pay.
#include <cstring>

#include "codec/format/count_fits.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

class RawCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::raw; }
  std::string_view name() const override { return "raw"; }
  std::string_view description() const override { return "no compression (framed copy)"; }
  bool lossy() const override { return false; }
  bool supports(Dtype) const override { return true; }

  size_t max_payload(size_t n, Dtype d) const override { return n * dtype_size(d); }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    size_t bytes = n * dtype_size(d);
    if (bytes) std::memcpy(out.data(), data, bytes);
    return bytes;
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return detail::require_payload(payload.size(), info.count * dtype_size(info.dtype), info,
                                   name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    size_t bytes = info.count * dtype_size(info.dtype);
    if (payload.size() != bytes)
      return {ErrorCode::corrupt_frame, "raw payload has " + std::to_string(payload.size()) +
                                            " bytes, expected " + std::to_string(bytes)};
    if (bytes) std::memcpy(out, payload.data(), bytes);
    return {};
  }
};

}  // namespace

COMMPRESS_REGISTER_CODEC(raw, std::make_unique<RawCodec>());

}  // namespace commpress::codec
