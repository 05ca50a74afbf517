// One chunk of an szp-e payload (docs/format/szp-e.md): up to kChunkValues values coded on
// their own, so chunks are encoded and decoded in parallel and the bytes never depend on the
// thread count. Inside a chunk the szp blocks chain their prediction (chained_lorenzo.hpp),
// zero blocks collapse into runs (header_runs.hpp), and each of the two streams, header runs
// and block bodies, is stored through zstd where that is smaller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/header_runs.hpp"
#include "codec/lossy/szp/interpolation_nd.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::szp {

inline constexpr size_t kChunkValues = size_t{1} << 16;
inline constexpr size_t kChunkBlocks = kChunkValues / kBlockValues;
// mode byte, coding byte, two u32 stream sizes
inline constexpr size_t kChunkHeaderSize = 10;

constexpr size_t chunk_count(size_t n) { return (n + kChunkValues - 1) / kChunkValues; }

// The largest chunk of `values` values any valid frame holds.
template <class T>
constexpr size_t max_chunk_size(size_t values) {
  const size_t nb = block_count(values);
  return kChunkHeaderSize + max_header_runs_size(nb) + nb * max_body_size<T>(Mode::lossy);
}

// Encodes x[0..len) (len <= kChunkValues) with absolute bound eb >= 0 into dst, which has
// room for max_chunk_size<T>(len) bytes; returns the chunk's size. `sparse`: the chunk may
// be written as residual events (sparse_residuals.hpp) where that is smaller (szp-eh's
// encoder; szp-e's frames stay what they were).
template <class T>
Result<size_t> encode_chunk(const T* x, size_t len, double eb, std::byte* dst,
                            bool sparse = false);

// The size a chunk declares in its header, checked against the bytes that remain.
Result<size_t> chunk_size_at(std::span<const std::byte> rest);

// Decodes one chunk of len values into out. eb is the frame's bound; last says the chunk
// ends the frame (only its last block may be partial).
template <class T>
Status decode_chunk(std::span<const std::byte> chunk, size_t len, double eb, T* out);

// Chunks of a shaped payload (mode 0x03): their blocks hold the codes of the N-D
// interpolation over the frame's box (slab_prediction.hpp), in the order it visits the
// values, instead of residuals of a 1-D chain.

// Encodes codes [begin, begin + len) (k and xs hold the whole box's codes and the values in
// code order); fail[b] says block b of the codes travels raw, its values taken from xs.
template <class T>
Result<size_t> encode_shaped_chunk(const T* xs, const typename BlockTraits<T>::Int* k,
                                   const uint8_t* fail, size_t begin, size_t len,
                                   std::byte* dst);

// Decodes such a chunk: the codes of its non-raw blocks into qr[begin ..], the values of its
// raw blocks into xs[begin ..], and raw[b] = whether block b is raw.
template <class T>
Status decode_shaped_chunk(std::span<const std::byte> chunk, size_t len, double eb,
                           size_t begin, typename BlockTraits<T>::Int* qr, uint8_t* raw, T* xs);

}  // namespace commpress::codec::szp
