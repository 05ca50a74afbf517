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

}  // namespace commpress::codec::detail
