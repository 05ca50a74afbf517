// Consecutive blocks of a panel, each encoded as its own frames (Wire::encode_block), back to
// back. A rank that received them can pass one block's frames on to another rank unchanged:
// the value decoded at the end of two hops is the one the encoding rank's frames give, with
// one codec error, not two, and the second hop carries as few bytes as the first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commpress/status.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/transport/wire.hpp"

namespace commpress::linalg::detail {

// The blocks of data (their element counts: sizes, in order) into out; offsets gets one entry
// per block and one past the last: block b's frames are out[offsets[b], offsets[b + 1]).
Status encode_blocks(const comm::detail::Wire& w, const void* data, std::span<const int64_t> sizes,
                     comm::detail::Buffer& out, std::vector<size_t>& offsets);

// The same blocks out of bytes, which must hold exactly them: each decoded into data (the
// blocks back to back), offsets as encode_blocks gives them. A frame that is cut short, damaged
// or followed by stray bytes is an error naming the block.
Status decode_blocks(const comm::detail::Wire& w, std::span<const std::byte> bytes,
                     std::span<const int64_t> sizes, void* data, std::vector<size_t>& offsets);

// The largest encoding of such blocks (a receive posted before their sizes are known).
size_t blocks_capacity(const comm::detail::Wire& w, std::span<const int64_t> sizes);

}  // namespace commpress::linalg::detail
