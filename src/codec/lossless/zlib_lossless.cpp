// "zlib-<level>": Zip (deflate in a zlib wrapper) in 1 GiB chunks, each chunk one complete
// zlib stream. Streams are per thread and reset between chunks, so a warm call does not
// allocate. Payload layout: docs/format/lossless.md.
#include <zlib.h>

#include <array>
#include <limits>
#include <string>

#include "codec/lossless/chunked_stream.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

// avail_in/avail_out are 32-bit: a chunk must fit in one call.
static_assert(detail::kLosslessChunkBytes < std::numeric_limits<uInt>::max() / 2);

// Deflate state for one level, initialized on first use by this thread.
class Deflater {
 public:
  ~Deflater() {
    if (ready_) deflateEnd(&s_);
  }
  z_stream* get(int level) {
    if (!ready_) {
      s_ = {};
      // deflateInit's defaults (windowBits 15, memLevel 8) are what compressBound assumes.
      if (deflateInit(&s_, level) != Z_OK) return nullptr;
      ready_ = true;
    } else if (deflateReset(&s_) != Z_OK) {
      return nullptr;
    }
    return &s_;
  }

 private:
  z_stream s_{};
  bool ready_ = false;
};

class Inflater {
 public:
  ~Inflater() {
    if (ready_) inflateEnd(&s_);
  }
  z_stream* get() {
    if (!ready_) {
      s_ = {};
      if (inflateInit(&s_) != Z_OK) return nullptr;
      ready_ = true;
    } else if (inflateReset(&s_) != Z_OK) {
      return nullptr;
    }
    return &s_;
  }

 private:
  z_stream s_{};
  bool ready_ = false;
};

z_stream* thread_deflater(int level) {
  thread_local std::array<Deflater, 10> per_level;
  return per_level.at(static_cast<size_t>(level)).get(level);
}

z_stream* thread_inflater() {
  thread_local Inflater inflater;
  return inflater.get();
}

class ZlibChunks final : public detail::ChunkCodec {
 public:
  explicit ZlibChunks(int level) : level_(level) {}

  size_t chunk_bound(size_t raw) const override { return compressBound(static_cast<uLong>(raw)); }

  // A zlib stream has a 2-byte header and a 4-byte Adler-32; deflate's longest match, 258
  // bytes, costs at least 2 bits (a length code and a distance code of 1 bit each).
  size_t chunk_min(size_t raw) const override { return 6 + raw / 1032; }

  Result<size_t> compress_chunk(std::span<const std::byte> in,
                                std::span<std::byte> out) const override {
    z_stream* s = thread_deflater(level_);
    if (!s) return Status{ErrorCode::internal, "zlib deflateInit failed (out of memory)"};
    s->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    s->avail_in = static_cast<uInt>(in.size());
    s->next_out = reinterpret_cast<Bytef*>(out.data());
    s->avail_out = static_cast<uInt>(out.size());
    int rc = deflate(s, Z_FINISH);
    // With room for compressBound bytes, one Z_FINISH call always completes the stream.
    if (rc != Z_STREAM_END)
      return Status{ErrorCode::internal, "zlib deflate did not finish (code " +
                                             std::to_string(rc) + ")"};
    return static_cast<size_t>(s->total_out);
  }

  Status decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    z_stream* s = thread_inflater();
    if (!s) return {ErrorCode::internal, "zlib inflateInit failed (out of memory)"};
    s->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    s->avail_in = static_cast<uInt>(in.size());
    s->next_out = reinterpret_cast<Bytef*>(out.data());
    s->avail_out = static_cast<uInt>(out.size());
    int rc = inflate(s, Z_FINISH);
    if (rc != Z_STREAM_END)
      return {ErrorCode::corrupt_frame,
              std::string("zlib stream is damaged or incomplete: ") +
                  (s->msg ? s->msg : "code " + std::to_string(rc))};
    if (s->avail_out != 0 || s->avail_in != 0)
      return {ErrorCode::corrupt_frame,
              "zlib stream decoded to " + std::to_string(s->total_out) + " of " +
                  std::to_string(out.size()) + " bytes, " + std::to_string(s->avail_in) +
                  " input bytes left over"};
    return {};
  }

 private:
  int level_;
};

class ZlibLossless final : public Codec {
 public:
  explicit ZlibLossless(int level)
      : level_(level), name_("zlib-" + std::to_string(level)),
        description_("Zip (zlib/deflate) level " + std::to_string(level)) {}

  CodecId id() const override { return CodecId::zlib; }
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  bool lossy() const override { return false; }
  bool supports(Dtype) const override { return true; }
  uint32_t param() const override { return static_cast<uint32_t>(level_); }

  size_t max_payload(size_t n, Dtype d) const override {
    return detail::chunked_max_payload(ZlibChunks(level_), n * dtype_size(d));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double, std::span<std::byte> out,
                        Workspace&) const override {
    return detail::chunked_encode(ZlibChunks(level_),
                                  {static_cast<const std::byte*>(data), n * dtype_size(d)}, out);
  }

  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    return detail::chunked_check_fits(ZlibChunks(level_), payload,
                                      info.count * dtype_size(info.dtype), info, name());
  }

  // The level only affects the encoder: any zlib frame decodes the same way.
  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace&) const override {
    return detail::chunked_decode(
        ZlibChunks(level_), payload,
        {static_cast<std::byte*>(out), info.count * dtype_size(info.dtype)});
  }

 private:
  int level_;
  std::string name_, description_;
};

}  // namespace

COMMPRESS_REGISTER_CODEC(zlib1, std::make_unique<ZlibLossless>(1));
COMMPRESS_REGISTER_CODEC(zlib6, std::make_unique<ZlibLossless>(6));

}  // namespace commpress::codec
