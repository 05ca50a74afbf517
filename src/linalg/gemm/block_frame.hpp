// A block of a column-major matrix (rows x cols, any ld) as it travels between ranks: ONE frame
// of the call's Wire (comm/transport/wire.hpp) for the whole block, whatever the wire's chunk
// size, or its elements packed contiguously when the wire is uncompressed. Compressing a block
// once and forwarding the bytes is how the compressed algorithms circulate A and B without
// recompressing at every hop. Receivers decode with Wire::decode (a block arrives contiguous).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "comm/transport/wire.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg::detail {

using comm::detail::Wire;

// The wire of one operand's blocks: codec ("none": raw) with the absolute bound already
// resolved (0: exact frames), for elements of type T.
template <class T>
Result<Wire> block_wire(const std::string& codec, const codec::ErrorBound& bound);

// The block's frame into out[0, returned size); out holds at least
// wire.frame_capacity(rows * cols) bytes. The wire's dtype must be T's.
template <class T>
Result<size_t> encode_block_frame_into(const Wire& wire, const T* data, int64_t ld, int64_t rows,
                                       int64_t cols, std::span<std::byte> out);

// The same into a byte vector, resized to the frame (left empty on failure; capacity kept).
template <class T, class ByteVector>
Status encode_block_frame(const Wire& wire, const T* data, int64_t ld, int64_t rows, int64_t cols,
                          ByteVector& out) {
  const size_t cap = wire.frame_capacity(size_t(rows * cols));
  if (out.size() < cap) out.resize(cap);
  auto len =
      encode_block_frame_into(wire, data, ld, rows, cols, std::span<std::byte>(out.data(), cap));
  out.resize(len.ok() ? *len : 0);
  return len.status();
}

// A message must fit MPI's int count; checked once from sizes every rank computes alike
// (unsupported on every rank: a larger grid makes the blocks smaller).
Status check_message_capacity(size_t bytes, const char* what);

}  // namespace commpress::linalg::detail
