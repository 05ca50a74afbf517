#include "codec/format/frame_header.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include "core/assert.hpp"
#include "core/byte_io.hpp"
#include "core/checksum.hpp"

namespace commpress::codec {

namespace {

constexpr size_t kChecksumOffset = 48;

bool valid_dtype(uint8_t v) { return v >= 1 && v <= 5; }
bool valid_mode(uint8_t v) { return v <= 2; }
bool valid_codec(uint8_t v) { return v >= 1 && v <= uint8_t(CodecId::szp_e); }

std::string num(uint64_t v) { return std::to_string(v); }

}  // namespace

size_t FrameInfo::frame_size() const { return kFrameHeaderSize + payload_size; }

namespace detail {

void write_frame_header(const FrameInfo& info, std::span<const std::byte> payload,
                        std::byte* dst) {
  COMMPRESS_ASSERT(info.payload_size == payload.size());
  std::memcpy(dst, kFrameMagic.data(), 4);
  core::store_le<uint8_t>(dst + 4, info.version);
  core::store_le<uint8_t>(dst + 5, static_cast<uint8_t>(info.codec));
  core::store_le<uint8_t>(dst + 6, static_cast<uint8_t>(info.dtype));
  core::store_le<uint8_t>(dst + 7, static_cast<uint8_t>(info.mode));
  core::store_le<uint64_t>(dst + 8, info.count);
  core::store_le<double>(dst + 16, info.requested_bound);
  core::store_le<double>(dst + 24, info.abs_bound);
  core::store_le<uint64_t>(dst + 32, info.payload_size);
  core::store_le<uint32_t>(dst + 40, info.param);
  core::store_le<uint32_t>(dst + 44, 0);  // reserved flags
  uint64_t sum = core::checksum64({dst, kChecksumOffset}, payload);
  core::store_le<uint64_t>(dst + kChecksumOffset, sum);
}

}  // namespace detail

Result<size_t> peek_frame_size(std::span<const std::byte> prefix) {
  if (prefix.size() < kFrameHeaderSize)
    return Status{ErrorCode::truncated, "frame header needs " + num(kFrameHeaderSize) +
                                            " bytes, got " + num(prefix.size())};
  if (std::memcmp(prefix.data(), detail::kFrameMagic.data(), 4) != 0)
    return Status{ErrorCode::corrupt_frame, "bad magic: not a commpress frame"};
  uint64_t payload = core::load_le<uint64_t>(prefix.data() + 32);
  if (payload > (uint64_t{1} << 62))
    return Status{ErrorCode::corrupt_frame, "payload length " + num(payload) + " is absurd"};
  return static_cast<size_t>(kFrameHeaderSize + payload);
}

namespace detail {

Result<FrameInfo> inspect_header(std::span<const std::byte> frame) {
  auto total = peek_frame_size(frame);
  if (!total.ok()) return total.status();
  const std::byte* p = frame.data();
  FrameInfo info;
  info.version = core::load_le<uint8_t>(p + 4);
  if (info.version != kFormatVersion)
    return Status{ErrorCode::unsupported, "frame format version " + num(info.version) +
                                              " (this build reads version " +
                                              num(kFormatVersion) + ")"};
  uint8_t codec = core::load_le<uint8_t>(p + 5), dtype = core::load_le<uint8_t>(p + 6),
          mode = core::load_le<uint8_t>(p + 7);
  if (!valid_codec(codec))
    return Status{ErrorCode::corrupt_frame, "unknown codec id " + num(codec)};
  if (!valid_dtype(dtype)) return Status{ErrorCode::corrupt_frame, "unknown dtype " + num(dtype)};
  if (!valid_mode(mode))
    return Status{ErrorCode::corrupt_frame, "unknown error-bound mode " + num(mode)};
  info.codec = static_cast<CodecId>(codec);
  info.dtype = static_cast<Dtype>(dtype);
  info.mode = static_cast<BoundMode>(mode);
  info.count = core::load_le<uint64_t>(p + 8);
  info.requested_bound = core::load_le<double>(p + 16);
  info.abs_bound = core::load_le<double>(p + 24);
  info.payload_size = core::load_le<uint64_t>(p + 32);
  info.param = core::load_le<uint32_t>(p + 40);
  info.checksum = core::load_le<uint64_t>(p + kChecksumOffset);
  if (core::load_le<uint32_t>(p + 44) != 0)
    return Status{ErrorCode::corrupt_frame, "reserved header flags are not zero"};
  if (!check_count(info.count).ok())
    return Status{ErrorCode::corrupt_frame, "element count " + num(info.count) +
                                                " exceeds the " + num(kMaxCount) +
                                                " a frame may hold"};
  const bool lossy = info.mode != BoundMode::lossless;
  // A REL bound may resolve to 0 (the data then travels exactly); an ABS bound never does.
  if (!std::isfinite(info.abs_bound) || info.abs_bound < 0 ||
      (info.mode == BoundMode::abs && info.abs_bound <= 0) ||
      !std::isfinite(info.requested_bound) || info.requested_bound < 0)
    return Status{ErrorCode::corrupt_frame, "error bound fields are invalid"};
  // Encoders write no bound for lossless frames and resolve an ABS request to itself.
  if (!lossy && (info.abs_bound != 0 || info.requested_bound != 0))
    return Status{ErrorCode::corrupt_frame, "a lossless frame carries a nonzero error bound"};
  if (info.mode == BoundMode::abs && info.abs_bound != info.requested_bound)
    return Status{ErrorCode::corrupt_frame, "an absolute-bound frame guarantees another bound "
                                            "than the one requested"};
  if (frame.size() < *total)
    return Status{ErrorCode::truncated, "frame declares " + num(*total) + " bytes but only " +
                                            num(frame.size()) + " are present"};
  if (frame.size() > *total)
    return Status{ErrorCode::corrupt_frame, "frame declares " + num(*total) + " bytes but " +
                                                num(frame.size()) + " were given"};
  uint64_t sum = core::checksum64({p, kChecksumOffset}, frame.subspan(kFrameHeaderSize));
  if (sum != info.checksum)
    return Status{ErrorCode::checksum_mismatch, "frame checksum does not match its bytes"};
  return info;
}

}  // namespace detail

Result<FrameInfo> inspect(std::span<const std::byte> frame) {
  auto info = detail::inspect_header(frame);
  if (!info.ok()) return info;
  // Before anyone sizes memory by the count: the payload must be able to hold it. An id
  // with no codec built in is refused by the decoder, which has nothing to size.
  if (auto codec = codec_for_id(info->codec); codec.ok())
    COMMPRESS_RETURN_IF_ERROR((*codec)->check_count_fits(frame.subspan(kFrameHeaderSize), *info));
  return info;
}

std::string describe(const FrameInfo& info) {
  std::ostringstream os;
  os.precision(17);
  auto codec = codec_for_id(info.codec);
  os << "format_version: " << int(info.version) << "\n"
     << "codec: " << int(info.codec) << " (" << (codec.ok() ? (*codec)->name() : "?") << ")\n"
     << "dtype: " << dtype_name(info.dtype) << "\n"
     << "count: " << info.count << "\n"
     << "bound_mode: " << bound_mode_name(info.mode) << "\n"
     << "requested_bound: " << info.requested_bound << "\n"
     << "abs_bound: " << info.abs_bound << "\n"
     << "param: " << info.param << "\n"
     << "payload_bytes: " << info.payload_size << "\n"
     << "frame_bytes: " << info.frame_size() << "\n"
     << "ratio: " << double(info.count * dtype_size(info.dtype)) / double(info.frame_size())
     << "\n"
     << "checksum: 0x" << std::hex << info.checksum << std::dec << "\n";
  return os.str();
}

}  // namespace commpress::codec
