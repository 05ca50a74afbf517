// Validates an szp payload and finds where each chunk of blocks starts, in one pass over the
// header bytes (a body's size is a function of its header byte), so the combining pass can
// walk every chunk's bodies in order without a per-block offset table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/lossy/szp/block_header.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::homomorphic {

// Block b's body size: the full-block table size, except for a raw last partial block.
template <class T>
inline size_t block_body_size(uint8_t header, size_t valid) {
  if (header == szp::kRawHeader) return valid * sizeof(T);
  return szp::kBodySizeTable<T>[int(szp::Mode::lossy)][header];
}

// The lossy szp payload of n values, cut into `chunks` chunks of blocks (chunk c starts at
// block szp::chunk_begin(nb, chunks, c)): on success starts[c] is the offset of chunk c's first
// body in the bodies area, for c = 0..chunks. corrupt_frame / truncated when a header byte is
// invalid or the bodies do not fill the payload exactly (the same checks as
// szp::block_offsets, with the same messages).
template <class T>
Status scan_payload(std::span<const std::byte> payload, size_t n, size_t chunks,
                    uint64_t* starts);

}  // namespace commpress::codec::homomorphic
