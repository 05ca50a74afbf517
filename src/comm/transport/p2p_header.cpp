#include "comm/transport/p2p_header.hpp"

#include <cstring>

#include "core/byte_io.hpp"
#include "core/checksum.hpp"

namespace commpress::comm::detail {

namespace {

constexpr char kMagic[4] = {'C', 'P', 'M', 'H'};
constexpr uint8_t kVersion = 2;
constexpr size_t kFlagsOffset = 71;
constexpr uint8_t kPlainFlag = 1;
constexpr size_t kChecksumOffset = 72;

uint64_t header_checksum(const std::byte* p) {
  return core::checksum64(std::span<const std::byte>(p, kChecksumOffset), {});
}

}  // namespace

uint64_t MessageHeader::chunks() const {
  if (sender_status != ErrorCode::ok || chunk_elems == 0) return 0;
  return count / chunk_elems + (count % chunk_elems ? 1 : 0);
}

std::array<std::byte, kMessageHeaderSize> write_header(const MessageHeader& h) {
  std::array<std::byte, kMessageHeaderSize> out{};
  std::byte* p = out.data();
  std::memcpy(p, kMagic, 4);
  core::store_le<uint8_t>(p + 4, kVersion);
  core::store_le<uint8_t>(p + 5, uint8_t(h.dtype));
  core::store_le<uint8_t>(p + 6, uint8_t(h.mode));
  core::store_le<uint8_t>(p + 7, uint8_t(h.sender_status));
  core::store_le<uint64_t>(p + 8, h.count);
  core::store_le<uint64_t>(p + 16, h.chunk_elems);
  core::store_le<uint64_t>(p + 24, h.chunk_capacity);
  core::store_le<double>(p + 32, h.requested_bound);
  core::store_le<double>(p + 40, h.abs_bound);
  std::memcpy(p + 48, h.codec.data(), std::min(h.codec.size(), kMessageCodecNameSize));
  core::store_le<uint8_t>(p + kFlagsOffset, h.plain ? kPlainFlag : 0);
  core::store_le<uint64_t>(p + kChecksumOffset, header_checksum(p));
  return out;
}

bool looks_like_header(std::span<const std::byte> bytes) {
  return bytes.size() == kMessageHeaderSize && std::memcmp(bytes.data(), kMagic, 4) == 0;
}

Result<MessageHeader> parse_header(std::span<const std::byte> bytes) {
  if (!looks_like_header(bytes))
    return Status{ErrorCode::mismatch, "received " + std::to_string(bytes.size()) +
                                           " bytes that are not a commpress message header "
                                           "(does the sender use Algorithm::Mpi?)"};
  const std::byte* p = bytes.data();
  if (core::load_le<uint64_t>(p + kChecksumOffset) != header_checksum(p))
    return Status{ErrorCode::checksum_mismatch, "message header damaged (checksum mismatch)"};
  if (core::load_le<uint8_t>(p + 4) != kVersion)
    return Status{ErrorCode::unsupported, "message header version " +
                                              std::to_string(core::load_le<uint8_t>(p + 4))};
  MessageHeader h;
  uint8_t dtype = core::load_le<uint8_t>(p + 5), mode = core::load_le<uint8_t>(p + 6),
          status = core::load_le<uint8_t>(p + 7);
  if (codec::dtype_size(codec::Dtype(dtype)) == 0 || mode > uint8_t(codec::BoundMode::rel) ||
      status > uint8_t(ErrorCode::internal))
    return Status{ErrorCode::corrupt_frame, "message header holds an unknown dtype, bound mode "
                                            "or status"};
  h.dtype = codec::Dtype(dtype);
  h.mode = codec::BoundMode(mode);
  h.sender_status = ErrorCode(status);
  h.count = core::load_le<uint64_t>(p + 8);
  h.chunk_elems = core::load_le<uint64_t>(p + 16);
  h.chunk_capacity = core::load_le<uint64_t>(p + 24);
  h.requested_bound = core::load_le<double>(p + 32);
  h.abs_bound = core::load_le<double>(p + 40);
  const char* name = reinterpret_cast<const char*>(p + 48);
  h.codec.assign(name, strnlen(name, kMessageCodecNameSize));
  const uint8_t flags = core::load_le<uint8_t>(p + kFlagsOffset);
  if (flags & ~kPlainFlag)
    return Status{ErrorCode::corrupt_frame,
                  "message header holds unknown flags " + std::to_string(flags)};
  h.plain = flags & kPlainFlag;
  if (h.sender_status == ErrorCode::ok && h.chunk_elems == 0)
    return Status{ErrorCode::corrupt_frame, "message header declares empty chunks"};
  return h;
}

}  // namespace commpress::comm::detail
