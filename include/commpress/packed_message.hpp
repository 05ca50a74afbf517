// A point-to-point message as ONE self-describing byte string: what the PMPI library sends
// in place of an MPI_Send's array, so that the compressed message travels as a single MPI
// message on the caller's communicator and tag and MPI's own matching and non-overtaking
// order apply to it unchanged (docs/format.md, "Packed message"). comm::send/recv instead
// stream a header and chunk messages, which overlaps compression with transfer but needs a
// receive that knows it is a commpress one.
//
// A packed message's length is never a multiple of 4, so a receive of float or double data
// tells it from a plain array by the length MPI reports; the 64-bit key (the PMPI library's
// per-job value) and a checksum then tell it from any other odd-length bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "commpress/comm.hpp"

namespace commpress::comm {

inline constexpr size_t kPackedHeaderSize = 80;

struct PackedMessage {
  // Empty (size 0) when the array should travel as it is: the options ask for no codec,
  // Auto's model says compressing does not pay, or the packed form would not be smaller.
  std::unique_ptr<std::byte[]> data;
  size_t size = 0;
  Report report;  // what was sent (codec "none" when empty)
  std::span<const std::byte> bytes() const { return {data.get(), size}; }
};

// Collective over comm: makes Auto's point-to-point decisions use a measured profile, the
// probed profile of comm (zero-configuration Auto, measured now if comm has none yet; nothing
// is measured where COMMPRESS_PROFILE gives one). A send cannot run that collective
// measurement itself, so a program that packs messages calls this once before it sends
// (the PMPI library does, at MPI_Init, when point-to-point is intercepted).
void prepare_packed_messages(MPI_Comm comm, const Options& opts);

// Compresses count elements of dtype under opts (a REL bound is resolved on this array's
// own value range, as comm::send does). Errors: the arguments (bad dtype, null buffer, an
// invalid codec or bound); nothing has been sent then.
Result<PackedMessage> pack_message(const void* buf, size_t count, Dtype dtype, uint64_t key,
                                   const Options& opts);

// Whether length alone allows a packed message (cheap test on a probed size).
inline bool may_be_packed_message(size_t length) {
  return length >= kPackedHeaderSize && length % 4 != 0;
}

struct PackedInfo {
  size_t count = 0;  // elements the message decodes to
  Dtype dtype = Dtype::f64;
};
// The header's claims, checked (magic, key, version, checksum, lengths); ErrorCode::mismatch
// when the bytes are not a packed message with this key.
Result<PackedInfo> packed_message_info(std::span<const std::byte> bytes, uint64_t key);

// Decodes into out (room for capacity elements of the message's dtype). The Report's
// guaranteed_abs_bound is the sender's bound; raw_bytes the decoded size, bytes_sent the
// message's length. ErrorCode::truncated when the message holds more than capacity elements.
Result<Report> unpack_message(std::span<const std::byte> bytes, uint64_t key, void* out,
                              size_t capacity);

}  // namespace commpress::comm
