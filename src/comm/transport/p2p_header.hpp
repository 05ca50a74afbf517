// The first message of a compressed point-to-point transfer: what the sender is about to
// send (or that it failed before sending), so the receiver can check it against its own
// arguments and, on any disagreement, still consume exactly the messages that follow.
// Layout (little-endian, 80 bytes):
//   0  "CPMH"            4  version (2)      5  dtype        6  bound mode   7  sender status
//   8  count u64        16  chunk elements u64             24  chunk frame capacity u64
//  32  requested bound f64                  40  absolute bound used f64
//  48  codec name asked for, 23 bytes, NUL-padded ("none" when uncompressed)
//  71  flags: bit 0 = the chunks travel uncompressed although a codec was asked for
//      (Algorithm::Auto found that compressing would not pay); other bits 0
//  72  XXH3-64 checksum of bytes 0..71
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::detail {

inline constexpr size_t kMessageHeaderSize = 80;
inline constexpr size_t kMessageCodecNameSize = 23;

struct MessageHeader {
  ErrorCode sender_status = ErrorCode::ok;  // not ok: no chunk messages follow
  codec::Dtype dtype = codec::Dtype::u8;
  codec::BoundMode mode = codec::BoundMode::lossless;
  uint64_t count = 0;
  uint64_t chunk_elems = 1;
  uint64_t chunk_capacity = 0;
  double requested_bound = 0;
  double abs_bound = 0;
  std::string codec = "none";  // at most 23 characters are carried
  bool plain = false;           // chunks are uncompressed (Auto declined `codec`)

  // Chunk messages that follow this header.
  uint64_t chunks() const;
};

std::array<std::byte, kMessageHeaderSize> write_header(const MessageHeader& h);
// Checks the magic, checksum, version and enumerations; the rest is the receiver's to judge.
Result<MessageHeader> parse_header(std::span<const std::byte> bytes);
bool looks_like_header(std::span<const std::byte> bytes);

}  // namespace commpress::comm::detail
