// Splits a byte stream into independently compressed chunks, for libraries whose one-shot
// calls take an int-sized input (lz4, blosc) or whose bounds are simplest per chunk (zlib).
// Layout (docs/format/lossless.md): for each chunk, u32 compressed length then that many
// bytes. Chunk i holds raw bytes [i*C, min((i+1)*C, total)), C = chunk_bytes(); the raw
// sizes are implied, so a decoder needs only the element count from the frame header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "commpress/codec.hpp"

namespace commpress::codec::detail {

// Raw bytes per chunk for every chunked codec; part of the wire format.
inline constexpr size_t kLosslessChunkBytes = size_t{1} << 30;

// One library's view of a single chunk.
class ChunkCodec {
 public:
  virtual ~ChunkCodec() = default;
  virtual size_t chunk_bytes() const { return kLosslessChunkBytes; }
  // Worst-case compressed size of a chunk of `raw` bytes (raw <= chunk_bytes()).
  virtual size_t chunk_bound(size_t raw) const = 0;
  // Compresses `in` into `out` (out.size() >= chunk_bound(in.size())); returns bytes written.
  virtual Result<size_t> compress_chunk(std::span<const std::byte> in,
                                        std::span<std::byte> out) const = 0;
  // The fewest compressed bytes that can decode to `raw` bytes: the library's densest coding
  // (a lower bound, so no valid chunk is ever refused by it).
  virtual size_t chunk_min(size_t raw) const = 0;
  // Checks, without decoding, what `in` itself says about its raw size (if it says anything).
  virtual Status check_declared(std::span<const std::byte>, size_t) const { return {}; }
  // Decompresses untrusted `in`; succeeds only if it yields exactly out.size() bytes.
  virtual Status decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const = 0;
};

// Worst-case payload size for `raw_bytes` of input, whatever the bytes.
size_t chunked_max_payload(const ChunkCodec& codec, size_t raw_bytes);
Result<size_t> chunked_encode(const ChunkCodec& codec, std::span<const std::byte> in,
                              std::span<std::byte> out);
// Refuses, without decoding, a payload that cannot hold raw_bytes: shorter than the chunks'
// minimums together, a chunk shorter than its own minimum, or one declaring another size.
Status chunked_check_fits(const ChunkCodec& codec, std::span<const std::byte> payload,
                          uint64_t raw_bytes, const FrameInfo& info, std::string_view name);
// Fills exactly out.size() bytes or fails; every length is checked against what is left.
Status chunked_decode(const ChunkCodec& codec, std::span<const std::byte> payload,
                      std::span<std::byte> out);

}  // namespace commpress::codec::detail
