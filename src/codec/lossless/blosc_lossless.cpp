// "blosc-<compressor>-<shuffle>": Blosc1 buffers in 1 GiB chunks (Blosc1 buffers stop near
// 2 GiB). Type size = dtype size, clevel 5, one internal thread through the context API so
// concurrent calls share no state. Payload layout: docs/format/lossless.md.
#include <blosc.h>

#include <string>

#include "codec/lossless/chunked_stream.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

static_assert(detail::kLosslessChunkBytes <= BLOSC_MAX_BUFFERSIZE);

constexpr int kBloscLevel = 5;

const char* shuffle_name(int shuffle) {
  switch (shuffle) {
    case BLOSC_NOSHUFFLE: return "noshuffle";
    case BLOSC_SHUFFLE: return "shuffle";
    default: return "bitshuffle";
  }
}

class BloscChunks final : public detail::ChunkCodec {
 public:
  BloscChunks(const char* compressor, int shuffle, size_t typesize)
      : compressor_(compressor), shuffle_(shuffle), typesize_(typesize) {}

  size_t chunk_bound(size_t raw) const override { return raw + BLOSC_MAX_OVERHEAD; }

  // A Blosc buffer has its 16-byte header; inside, no compressor Blosc may name codes more
  // than 32768 bytes per byte (zstd's densest: a 4-byte RLE block per 128 KiB), and 65536
  // leaves room for Blosc's own framing.
  size_t chunk_min(size_t raw) const override { return BLOSC_MIN_HEADER_LENGTH + raw / 65536; }

  // Blosc reads its own lengths from the buffer: its header must agree with the chunk and the
  // destination before Blosc may write anything.
  Status check_declared(std::span<const std::byte> in, size_t raw) const override {
    size_t nbytes = 0;
    if (in.size() < BLOSC_MIN_HEADER_LENGTH || blosc_cbuffer_validate(in.data(), in.size(), &nbytes) != 0)
      return {ErrorCode::corrupt_frame, "blosc header is invalid or disagrees with the " +
                                            std::to_string(in.size()) + "-byte chunk"};
    if (nbytes != raw)
      return {ErrorCode::corrupt_frame, "blosc header announces " + std::to_string(nbytes) +
                                            " bytes, expected " + std::to_string(raw)};
    return {};
  }

  Result<size_t> compress_chunk(std::span<const std::byte> in,
                                std::span<std::byte> out) const override {
    int n = blosc_compress_ctx(kBloscLevel, shuffle_, typesize_, in.size(), in.data(), out.data(),
                               out.size(), compressor_, 0, 1);
    // With BLOSC_MAX_OVERHEAD bytes of slack Blosc always fits (it falls back to a copy).
    if (n <= 0)
      return Status{ErrorCode::internal, std::string("blosc compression with ") + compressor_ +
                                             " failed (code " + std::to_string(n) + ")"};
    return static_cast<size_t>(n);
  }

  Status decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    COMMPRESS_RETURN_IF_ERROR(check_declared(in, out.size()));
    int n = blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
    if (n < 0) return {ErrorCode::corrupt_frame, "blosc rejected the buffer (code " +
                                                     std::to_string(n) + ")"};
    if (static_cast<size_t>(n) != out.size())
      return {ErrorCode::corrupt_frame, "blosc buffer decoded to " + std::to_string(n) +
                                            " bytes, expected " + std::to_string(out.size())};
    return {};
  }

 private:
  const char* compressor_;
  int shuffle_;
  size_t typesize_;
};

class BloscLossless final : public Codec {
 public:
  BloscLossless(const char* compressor, int shuffle)
      : compressor_(compressor), shuffle_(shuffle),
        name_(std::string("blosc-") + compressor + "-" + shuffle_name(shuffle)),
        description_(std::string("Blosc with ") + compressor + ", " + shuffle_name(shuffle) +
                     ", clevel " + std::to_string(kBloscLevel)) {}

  CodecId id() const override { return CodecId::blosc; }
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  bool lossy() const override { return false; }
  bool supports(Dtype) const override { return true; }
  // Informational: Blosc's compressor code << 16 | shuffle << 8 | clevel.
  uint32_t param() const override {
    int code = blosc_compname_to_compcode(compressor_);
    return (static_cast<uint32_t>(code < 0 ? 255 : code) << 16) |
           (static_cast<uint32_t>(shuffle_) << 8) | kBloscLevel;
  }

  size_t max_payload(size_t n, Dtype d) const override {
    return detail::chunked_max_payload(chunks(d), n * dtype_size(d));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    return detail::chunked_encode(chunks(d),
                                  {static_cast<const std::byte*>(data), n * dtype_size(d)}, out);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return detail::chunked_check_fits(chunks(info.dtype), payload,
                                      info.count * dtype_size(info.dtype), info, name());
  }

  // Each Blosc buffer names its own compressor and shuffle, so any variant decodes any frame.
  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    return detail::chunked_decode(
        chunks(info.dtype), payload,
        {static_cast<std::byte*>(out), info.count * dtype_size(info.dtype)});
  }

 private:
  BloscChunks chunks(Dtype d) const { return {compressor_, shuffle_, dtype_size(d)}; }

  const char* compressor_;
  int shuffle_;
  std::string name_, description_;
};

bool register_blosc_variants() {
  for (const char* compressor : {"blosclz", "lz4", "zstd"}) {
    // A Blosc build without this compressor cannot produce its frames: leave it out.
    if (blosc_compname_to_compcode(compressor) < 0) continue;
    for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE})
      detail::register_codec(std::make_unique<BloscLossless>(compressor, shuffle));
  }
  return true;
}

}  // namespace

namespace {
[[maybe_unused]] const bool blosc_registered = register_blosc_variants();
}

}  // namespace commpress::codec
