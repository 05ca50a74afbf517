// szp-eh's sparse chunks (docs/format/szp-e.md, "Sparse chunk"): the encoder that quantizes
// a chunk first and writes its residuals as events where they beat szp blocks (else the
// blocks), and the decoder of such a chunk. The events themselves: sparse_residuals.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/lossy/szp/chunk_streams.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::szp {

// Encodes x[0..len) of a chunk whose mode sample showed few moves (mode without kSparse;
// qz its quantizer; s the thread's scratch sized for the chunk) into dst: a sparse chunk, or
// the chunk of blocks where the events do not win.
template <class T>
Result<size_t> encode_sparse_first(const T* x, size_t len, uint8_t mode,
                                   const LinearQuantizer<T>& qz, chunk::ChunkScratch& s,
                                   std::byte* dst);

// Decodes a chunk whose mode has kSparse set.
template <class T>
Status decode_sparse_chunk(std::span<const std::byte> chunk, size_t len, double eb, T* out);

}  // namespace commpress::codec::szp
