// "lz4": LZ4 block format in 1 GiB chunks (LZ4's one-shot calls take an int-sized input).
// Payload layout: docs/format/lossless.md.
#include <lz4.h>

#include <string>

#include "codec/lossless/chunked_stream.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

static_assert(detail::kLosslessChunkBytes <= LZ4_MAX_INPUT_SIZE);

class Lz4Chunks final : public detail::ChunkCodec {
 public:
  size_t chunk_bound(size_t raw) const override {
    return static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw)));
  }

  // Every LZ4 sequence costs a token and a 2-byte offset and yields at most 255 bytes per
  // extra byte of match length, so no block reaches 255 bytes out per byte in.
  size_t chunk_min(size_t raw) const override { return raw / 255; }

  Result<size_t> compress_chunk(std::span<const std::byte> in,
                                std::span<std::byte> out) const override {
    int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                 reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                 static_cast<int>(out.size()));
    // Cannot happen with out sized by LZ4_compressBound; reported rather than trusted.
    if (n <= 0)
      return Status{ErrorCode::internal,
                    "LZ4_compress_default failed on " + std::to_string(in.size()) + " bytes"};
    return static_cast<size_t>(n);
  }

  Status decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                static_cast<int>(out.size()));
    if (n < 0) return {ErrorCode::corrupt_frame, "LZ4 rejected the compressed block"};
    if (static_cast<size_t>(n) != out.size())
      return {ErrorCode::corrupt_frame, "LZ4 block decoded to " + std::to_string(n) +
                                            " bytes, expected " + std::to_string(out.size())};
    return {};
  }
};

class Lz4Lossless final : public Codec {
 public:
  CodecId id() const override { return CodecId::lz4; }
  std::string_view name() const override { return "lz4"; }
  std::string_view description() const override { return "LZ4 (fast byte-level lossless)"; }
  bool lossy() const override { return false; }
  bool supports(Dtype) const override { return true; }

  size_t max_payload(size_t n, Dtype d) const override {
    return detail::chunked_max_payload(chunks_, n * dtype_size(d));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    return detail::chunked_encode(chunks_, {static_cast<const std::byte*>(data), n * dtype_size(d)},
                                  out);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return detail::chunked_check_fits(chunks_, payload, info.count * dtype_size(info.dtype), info,
                                      name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    return detail::chunked_decode(
        chunks_, payload, {static_cast<std::byte*>(out), info.count * dtype_size(info.dtype)});
  }

 private:
  Lz4Chunks chunks_;
};

}  // namespace

COMMPRESS_REGISTER_CODEC(lz4, std::make_unique<Lz4Lossless>());

}  // namespace commpress::codec
