// The slabs of a Huffman-coded shaped szp-e payload (tag 0x21, docs/format/szp-e.md): the
// multilevel interpolation of slab_prediction.hpp, but each value's code k (|k| < 2^15) is a
// symbol of a canonical Huffman code (canonical_huffman.hpp) and a value the bound refuses is
// stored on its own (symbol 0) instead of sending its block raw, as SZ3 does. A slab's
// symbols are cut into pieces of kPieceSymbols, whose codes, one after another, form one
// stream stored through zstd where that is smaller; the pieces' headers, outside it, bound
// how many values a payload byte can stand for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/lossy/szp/interpolation_nd.hpp"
#include "commpress/status.hpp"

namespace commpress::codec::szp {

inline constexpr size_t kPieceSymbols = size_t{1} << 16;
// The stream's header: a coding byte and the u64 size of the stream as stored.
inline constexpr size_t kStreamHeaderSize = 9;
// A piece's header: u32 bytes of its codes, u32 values it stores as they are.
inline constexpr size_t kPieceHeaderSize = 8;
// The fewest bytes a slab of `values` values takes: a table of one symbol, the stream's
// header and its pieces' headers (at least 8 bytes per 65536 values: 65536 f64 bytes each).
constexpr uint64_t min_huffman_slab_size(uint64_t values) {
  return 3 + kStreamHeaderSize + kPieceHeaderSize * ((values + kPieceSymbols - 1) / kPieceSymbols);
}

// The slab height the encoder writes: about 2^24 values, so a field up to 256^3 is predicted
// as one box (slab edges predict worse: each slab starts its levels anew;
// docs/measured-choices.md), larger ones in slabs coded in parallel.
size_t huffman_encoder_slab(size_t nz, size_t plane);

// Encodes the planes [z0, z1) of box b (x: the whole array) with the absolute bound eb > 0;
// appends the slab's bytes to out.
template <class T>
Status encode_huffman_slab(const T* x, const Box& b, size_t z0, size_t z1, double eb,
                           std::vector<std::byte>& out);

// The size of the slab of `values` values at the front of rest, from its table and piece
// headers (checked to lie within rest).
template <class T>
Result<size_t> huffman_slab_size(std::span<const std::byte> rest, size_t values);

// The largest slab whose symbols a decoder holds all at once (64 MiB of them), above the
// slabs the encoder writes for boxes of up to about 2^24 values a slab.
inline constexpr size_t kWholeSlabSymbols = size_t{1} << 25;

// Decodes the planes [z0, z1) of box b from their slab's bytes into out (the whole array);
// a slab of more than whole_limit values a piece at a time (the same values, slower).
template <class T>
Status decode_huffman_slab(std::span<const std::byte> slab_bytes, const Box& b, size_t z0,
                           size_t z1, double eb, T* out, size_t whole_limit = kWholeSlabSymbols);

}  // namespace commpress::codec::szp
