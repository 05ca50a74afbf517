// "zstd-<level>": one Zstandard frame holding the raw bytes, content size recorded in the
// frame. Contexts are per thread and reused, so a warm call does not allocate.
#include <zstd.h>

#include <string>

#include "codec/format/count_fits.hpp"
#include "codec/lossless/zstd_contexts.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

// A zstd frame is at least its 4-byte magic, and every block (at most 128 KiB of content)
// at least its 3-byte header: zstd's densest coding is about 1:43690.
constexpr uint64_t kZstdMaxBlockContent = uint64_t{1} << 17;

// The payload must be one zstd frame announcing exactly `expected` content bytes.
Status check_content_size(std::span<const std::byte> payload, uint64_t expected) {
  unsigned long long content = ZSTD_getFrameContentSize(payload.data(), payload.size());
  if (content == ZSTD_CONTENTSIZE_ERROR)
    return {ErrorCode::corrupt_frame, "payload is not a zstd frame"};
  if (content == ZSTD_CONTENTSIZE_UNKNOWN || content != expected)
    return {ErrorCode::corrupt_frame,
            "zstd frame content size " +
                (content == ZSTD_CONTENTSIZE_UNKNOWN ? std::string("unknown")
                                                     : std::to_string(content)) +
                " does not match the expected " + std::to_string(expected) + " bytes"};
  return {};
}

class ZstdLossless final : public Codec {
 public:
  explicit ZstdLossless(int level)
      : level_(level), name_("zstd-" + std::to_string(level)),
        description_("Zstandard level " + std::to_string(level)) {}

  CodecId id() const override { return CodecId::zstd; }
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  bool lossy() const override { return false; }
  bool supports(Dtype) const override { return true; }
  uint32_t param() const override { return static_cast<uint32_t>(level_); }

  size_t max_payload(size_t n, Dtype d) const override {
    return ZSTD_compressBound(n * dtype_size(d));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    ZSTD_CCtx* cctx = detail::thread_zstd_cctx();
    if (!cctx) return Status{ErrorCode::internal, "ZSTD_createCCtx failed (out of memory)"};
    size_t bytes = n * dtype_size(d);
    size_t r = ZSTD_compressCCtx(cctx, out.data(), out.size(), data, bytes, level_);
    if (ZSTD_isError(r))
      return Status{ErrorCode::internal, std::string("zstd compression failed: ") +
                                             ZSTD_getErrorName(r)};
    return r;
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    const uint64_t expected = info.count * dtype_size(info.dtype);
    COMMPRESS_RETURN_IF_ERROR(detail::require_payload(
        payload.size(), 4 + 3 * detail::ceil_div(expected, kZstdMaxBlockContent), info, name()));
    return check_content_size(payload, expected);
  }

  // Straight into the caller's array, which the caller sized: zstd's expansion is large
  // enough that no scratch should ever be sized from a frame.
  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    size_t expected = info.count * dtype_size(info.dtype);
    COMMPRESS_RETURN_IF_ERROR(check_content_size(payload, expected));
    size_t frame_len = ZSTD_findFrameCompressedSize(payload.data(), payload.size());
    if (ZSTD_isError(frame_len) || frame_len != payload.size())
      return {ErrorCode::corrupt_frame,
              "zstd frame does not span the " + std::to_string(payload.size()) + "-byte payload"};
    ZSTD_DCtx* dctx = detail::thread_zstd_dctx();
    if (!dctx) return {ErrorCode::internal, "ZSTD_createDCtx failed (out of memory)"};
    size_t r = ZSTD_decompressDCtx(dctx, out, expected, payload.data(), payload.size());
    if (ZSTD_isError(r))
      return {ErrorCode::corrupt_frame, std::string("zstd: ") + ZSTD_getErrorName(r)};
    if (r != expected)
      return {ErrorCode::corrupt_frame, "zstd frame decoded to " + std::to_string(r) +
                                            " bytes, expected " + std::to_string(expected)};
    return {};
  }

 private:
  int level_;
  std::string name_, description_;
};

}  // namespace

COMMPRESS_REGISTER_CODEC(zstd1, std::make_unique<ZstdLossless>(1));
COMMPRESS_REGISTER_CODEC(zstd3, std::make_unique<ZstdLossless>(3));
COMMPRESS_REGISTER_CODEC(zstd9, std::make_unique<ZstdLossless>(9));
COMMPRESS_REGISTER_CODEC(zstd19, std::make_unique<ZstdLossless>(19));

}  // namespace commpress::codec
