#include "codec/lossless/chunked_stream.hpp"

#include <algorithm>
#include <limits>
#include <string>

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
