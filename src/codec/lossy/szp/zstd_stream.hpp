// A stream of szp-e's payloads stored as it is or as one zstd frame, whichever is smaller:
// the chunks' header runs and block bodies (entropy_chunk.cpp) and the pieces of a Huffman-
// coded shaped payload (shaped_huffman.cpp). Layouts: docs/format/szp-e.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::codec::szp {

// Writes src[0..len) to dst (room for len bytes) as a zstd frame when that is smaller, else
// as it is; returns the size written and sets `flag` in `coding` when zstd was used.
// raw_bytes, the size of the values the stream stands for, sets zstd's level: 1 where the
// stream is a sizeable part of them (tight bounds: zstd's time then counts against the
// codec's speed), 6 where it is under 1/16 of them (loose bounds: the slower level costs
// little per raw byte and buys ~10% more ratio there, bench/results/codecs.md).
Result<size_t> put_stream(const void* src, size_t len, size_t raw_bytes, std::byte* dst,
                          uint8_t flag, uint8_t& coding);
// The same at a level the caller chose.
Result<size_t> put_stream_at(const void* src, size_t len, int level, std::byte* dst,
                             uint8_t flag, uint8_t& coding);
inline constexpr int kZstdFastLevel = 1;
inline constexpr int kZstdDenseLevel = 6;

// A stream as the decoder reads it: the stored bytes, or (zstd) their content in scratch.
// `most` bounds the content a zstd frame may declare; `exact` (when not SIZE_MAX) requires
// it. `what` names the stream in errors.
Result<std::span<const std::byte>> get_stream(std::span<const std::byte> stored, bool zstd,
                                              size_t most, size_t exact,
                                              std::vector<std::byte>& scratch, const char* what);

}  // namespace commpress::codec::szp
