// Emits and parses the 56-byte frame header (layout in docs/format.md).
#pragma once

#include <span>

#include "commpress/codec.hpp"

namespace commpress::codec::detail {

inline constexpr std::array<std::byte, 4> kFrameMagic = {std::byte{'C'}, std::byte{'P'},
                                                         std::byte{'R'}, std::byte{'F'}};

// Writes the header for info into dst[0..56), computing the checksum over the header fields
// and payload (info.payload_size must equal payload.size()).
void write_frame_header(const FrameInfo& info, std::span<const std::byte> payload,
                        std::byte* dst);

// inspect() without asking the frame's codec whether the payload can hold the count: for
// callers that ask that codec themselves (Codec::decompress), so a frame costs one lookup.
Result<FrameInfo> inspect_header(std::span<const std::byte> frame);

}  // namespace commpress::codec::detail
