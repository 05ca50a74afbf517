#include "codec/lossless/chunked_stream.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "codec/format/count_fits.hpp"
#include "core/assert.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::detail {

namespace {

// Each chunk's compressed length is stored in 32 bits.
void check_chunk_size(const ChunkCodec& codec) {
  COMMPRESS_ASSERT(codec.chunk_bytes() > 0);
  COMMPRESS_ASSERT(codec.chunk_bound(codec.chunk_bytes()) <= std::numeric_limits<uint32_t>::max());
}

}  // namespace

size_t chunked_max_payload(const ChunkCodec& codec, size_t raw_bytes) {
  check_chunk_size(codec);
  size_t c = codec.chunk_bytes();
  size_t full = raw_bytes / c, rest = raw_bytes % c;
  size_t total = full * (sizeof(uint32_t) + codec.chunk_bound(c));
  if (rest) total += sizeof(uint32_t) + codec.chunk_bound(rest);
  return total;
}

Result<size_t> chunked_encode(const ChunkCodec& codec, std::span<const std::byte> in,
                              std::span<std::byte> out) {
  check_chunk_size(codec);
  if (out.size() < chunked_max_payload(codec, in.size()))
    return Status{ErrorCode::capacity, "chunked payload needs " +
                                           std::to_string(chunked_max_payload(codec, in.size())) +
                                           " bytes of room, got " + std::to_string(out.size())};
  size_t pos = 0;
  for (size_t begin = 0; begin < in.size(); begin += codec.chunk_bytes()) {
    auto chunk = in.subspan(begin, std::min(codec.chunk_bytes(), in.size() - begin));
    auto dst = out.subspan(pos + sizeof(uint32_t), codec.chunk_bound(chunk.size()));
    auto written = codec.compress_chunk(chunk, dst);
    if (!written.ok()) return written.status();
    COMMPRESS_ASSERT(*written <= dst.size());
    core::store_le<uint32_t>(out.data() + pos, static_cast<uint32_t>(*written));
    pos += sizeof(uint32_t) + *written;
  }
  return pos;
}

Status chunked_check_fits(const ChunkCodec& codec, std::span<const std::byte> payload,
                          uint64_t raw_bytes, const FrameInfo& info, std::string_view name) {
  check_chunk_size(codec);
  const uint64_t c = codec.chunk_bytes(), full = raw_bytes / c, rest = raw_bytes % c;
  // Whole first, so a huge count costs one comparison, not a walk over its chunks.
  uint64_t least = full * (sizeof(uint32_t) + codec.chunk_min(c));
  if (rest) least += sizeof(uint32_t) + codec.chunk_min(rest);
  COMMPRESS_RETURN_IF_ERROR(require_payload(payload.size(), least, info, name));
  core::ByteReader reader(payload);
  for (uint64_t begin = 0, index = 0; begin < raw_bytes; begin += c, ++index) {
    const size_t raw = size_t(std::min(c, raw_bytes - begin));
    uint32_t len = 0;
    std::span<const std::byte> chunk;
    COMMPRESS_RETURN_IF_ERROR(reader.read(len, "chunk length"));
    COMMPRESS_RETURN_IF_ERROR(reader.take(len, chunk, "chunk data"));
    Status st = len < codec.chunk_min(raw)
                    ? Status{ErrorCode::corrupt_frame,
                             std::to_string(len) + " compressed bytes cannot decode to " +
                                 std::to_string(raw)}
                    : codec.check_declared(chunk, raw);
    if (!st.ok())
      return {st.code(), std::string(name) + " chunk " + std::to_string(index) + ": " +
                             st.message()};
  }
  return {};
}

Status chunked_decode(const ChunkCodec& codec, std::span<const std::byte> payload,
                      std::span<std::byte> out) {
  check_chunk_size(codec);
  core::ByteReader reader(payload);
  size_t index = 0;
  for (size_t begin = 0; begin < out.size(); begin += codec.chunk_bytes(), ++index) {
    auto dst = out.subspan(begin, std::min(codec.chunk_bytes(), out.size() - begin));
    uint32_t len = 0;
    COMMPRESS_RETURN_IF_ERROR(reader.read(len, "chunk length"));
    if (len > codec.chunk_bound(dst.size()))
      return {ErrorCode::corrupt_frame, "chunk " + std::to_string(index) + " claims " +
                                            std::to_string(len) + " compressed bytes for " +
                                            std::to_string(dst.size()) + " raw bytes"};
    std::span<const std::byte> src;
    COMMPRESS_RETURN_IF_ERROR(reader.take(len, src, "chunk data"));
    Status st = codec.decompress_chunk(src, dst);
    if (!st.ok())
      return {st.code(), "chunk " + std::to_string(index) + ": " + st.message()};
  }
  if (reader.remaining() != 0)
    return {ErrorCode::corrupt_frame, std::to_string(reader.remaining()) +
                                          " bytes follow the last chunk"};
  return {};
}

}  // namespace commpress::codec::detail
