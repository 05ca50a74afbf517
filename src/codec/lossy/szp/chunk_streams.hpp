// The plumbing szp-e's chunk layouts share (docs/format/szp-e.md, "Chunk" and "Sparse
// chunk"): the mode and coding bits, the thread's scratch, a chunk written from its two
// streams, and the portable quantizer's pick. Used by entropy_chunk.cpp (blocks, shaped
// chunks) and sparse_chunk.cpp (szp-eh's sparse chunks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/lossy/szp/entropy_chunk.hpp"
#include "codec/lossy/szp/header_runs.hpp"
#include "codec/lossy/szp/hysteresis_quantizer.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "codec/lossy/szp/zstd_stream.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp::chunk {

// Mode byte: the low nibble is the prediction order, bit 4 halves the step.
inline constexpr uint8_t kOrderMask = 0x0F;
inline constexpr uint8_t kHalfStep = 0x10;
// The mode of every chunk of a shaped payload: codes of the N-D prediction.
inline constexpr uint8_t kShapedCodes = 0x03;
// Bit 6 of a flat chunk's mode: its residuals are events (sparse_residuals.hpp), not blocks.
inline constexpr uint8_t kSparse = 0x40;
// Coding byte: which streams are zstd frames.
inline constexpr uint8_t kRunsZstd = 0x01;
inline constexpr uint8_t kBodiesZstd = 0x02;

inline bool valid_mode(uint8_t mode) {
  const uint8_t order = mode & kOrderMask;
  return (mode & ~(kOrderMask | kHalfStep)) == 0 && (order == 1 || order == 2);
}

// A block's integers on the portable path: hysteresis from the carried integer (half step),
// else rounding; false where the block must travel raw.
template <class T>
inline bool quantize_portable(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                              bool half, IntOf<T> carry, IntOf<T>* q) {
  return half ? hysteresis_block(x, valid, qz, carry, q) : quantize_block(x, valid, qz, q);
}

struct ChunkScratch {
  std::vector<uint8_t> headers, runs, events, raw;
  std::vector<std::byte> bodies, raw_values;
  std::vector<uint32_t> masks;
};

inline ChunkScratch& thread_scratch() {
  thread_local ChunkScratch s;
  return s;
}

// A chunk from its two streams: the header, then each stream through zstd where that pays
// (`level` 0: put_stream's choice from raw_bytes).
inline Result<size_t> write_chunk(uint8_t mode, const void* first, size_t first_len, const void* second,
                           size_t second_len, size_t raw_bytes, int level, std::byte* dst) {
  uint8_t coding = 0;
  std::byte* p = dst + kChunkHeaderSize;
  auto hs = level ? put_stream_at(first, first_len, level, p, kRunsZstd, coding)
                  : put_stream(first, first_len, raw_bytes, p, kRunsZstd, coding);
  if (!hs.ok()) return hs.status();
  auto bs = put_stream(second, second_len, raw_bytes, p + *hs, kBodiesZstd, coding);
  if (!bs.ok()) return bs.status();
  dst[0] = std::byte(mode);
  dst[1] = std::byte(coding);
  core::store_le<uint32_t>(dst + 2, uint32_t(*hs));
  core::store_le<uint32_t>(dst + 6, uint32_t(*bs));
  return kChunkHeaderSize + *hs + *bs;
}

// The chunk's tail, once its block headers (s.headers) and bodies (s.bodies[0..body_bytes))
// are known: header runs, both streams, then the chunk header in front.
inline Result<size_t> finish_chunk(uint8_t mode, ChunkScratch& s, size_t nb, size_t body_bytes,
                            size_t raw_bytes, std::byte* dst) {
  const size_t runs = encode_header_runs(s.headers.data(), nb, s.runs.data());
  return write_chunk(mode, s.runs.data(), runs, s.bodies.data(), body_bytes, raw_bytes, 0, dst);
}

// Room in the thread's scratch for a chunk of nb blocks.
template <class T>
ChunkScratch& scratch_for(size_t nb) {
  ChunkScratch& s = thread_scratch();
  s.headers.resize(nb);
  const size_t body_room = nb * max_body_size<T>(Mode::lossy);
  if (s.bodies.size() < body_room) s.bodies.resize(body_room);
  if (s.runs.size() < max_header_runs_size(nb)) s.runs.resize(max_header_runs_size(nb));
  return s;
}

}  // namespace commpress::codec::szp::chunk
