// The packed point-to-point message (commpress/packed_message.hpp, docs/format.md):
//   0  "CPMS"          4  version (1)     5  dtype     6  bound mode    7  padding bytes (1-4)
//   8  key u64        16  count u64      24  chunk elements u64         32  block bytes u64
//  40  requested bound f64               48  absolute bound used f64
//  56  codec name, 16 bytes, NUL-padded  72  XXH3-64 checksum of bytes 0..71
//  80  the block: the chunk frames of the array back to back (wire.hpp), then the padding
//      (zeros) that makes the length 1 more than a multiple of 4.
// The chunking and the frames are comm's Wire, as every other commpress transfer's.
#include "commpress/packed_message.hpp"

#include <cmath>
#include <cstring>

#include "comm/probe/probed_profile.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/transport/p2p_transfer.hpp"
#include "comm/transport/wire.hpp"
#include "core/byte_io.hpp"
#include "core/checksum.hpp"

namespace commpress::comm {

namespace {

constexpr char kMagic[4] = {'C', 'P', 'M', 'S'};
constexpr uint8_t kVersion = 1;
constexpr size_t kCodecOffset = 56, kCodecNameSize = 16, kChecksumOffset = 72;

uint64_t header_checksum(const std::byte* p) {
  return core::checksum64(std::span<const std::byte>(p, kChecksumOffset), {});
}

// 1 to 4 bytes that make the length 1 more than a multiple of 4.
size_t padding_for(size_t length) {
  const size_t pad = (5 - length % 4) % 4;
  return pad == 0 ? 4 : pad;
}

struct Header {
  Dtype dtype = Dtype::f64;
  codec::BoundMode mode = codec::BoundMode::lossless;
  uint8_t padding = 0;
  uint64_t count = 0, chunk_elems = 0, block_bytes = 0;
  double requested = 0, abs = 0;
  std::string codec;
};

Status not_packed(const std::string& why) {
  return {ErrorCode::mismatch, "not a packed commpress message: " + why};
}

Result<Header> parse(std::span<const std::byte> bytes, uint64_t key) {
  if (!may_be_packed_message(bytes.size()))
    return not_packed(std::to_string(bytes.size()) + " bytes");
  const std::byte* p = bytes.data();
  if (std::memcmp(p, kMagic, 4) != 0) return not_packed("no magic");
  if (core::load_le<uint64_t>(p + 8) != key) return not_packed("another job's key");
  if (core::load_le<uint64_t>(p + kChecksumOffset) != header_checksum(p))
    return not_packed("header checksum mismatch");
  if (core::load_le<uint8_t>(p + 4) != kVersion)
    return Status{ErrorCode::unsupported, "packed message version " +
                                              std::to_string(core::load_le<uint8_t>(p + 4))};
  Header h;
  const uint8_t dtype = core::load_le<uint8_t>(p + 5), mode = core::load_le<uint8_t>(p + 6);
  if (dtype != uint8_t(Dtype::f32) && dtype != uint8_t(Dtype::f64))
    return Status{ErrorCode::corrupt_frame, "packed message of dtype " + std::to_string(dtype)};
  if (mode > uint8_t(codec::BoundMode::rel))
    return Status{ErrorCode::corrupt_frame, "packed message of bound mode " + std::to_string(mode)};
  h.dtype = Dtype(dtype);
  h.mode = codec::BoundMode(mode);
  h.padding = core::load_le<uint8_t>(p + 7);
  h.count = core::load_le<uint64_t>(p + 16);
  h.chunk_elems = core::load_le<uint64_t>(p + 24);
  h.block_bytes = core::load_le<uint64_t>(p + 32);
  h.requested = core::load_le<double>(p + 40);
  h.abs = core::load_le<double>(p + 48);
  const char* name = reinterpret_cast<const char*>(p + kCodecOffset);
  h.codec.assign(name, strnlen(name, kCodecNameSize));
  if (h.padding < 1 || h.padding > 4 || h.chunk_elems == 0 ||
      h.block_bytes != bytes.size() - kPackedHeaderSize - h.padding)
    return Status{ErrorCode::corrupt_frame,
                  "packed message of " + std::to_string(bytes.size()) + " bytes declares a " +
                      std::to_string(h.block_bytes) + "-byte block and " +
                      std::to_string(h.padding) + " padding bytes"};
  if (!std::isfinite(h.abs) || h.abs < 0)
    return Status{ErrorCode::corrupt_frame, "packed message carries bound " + std::to_string(h.abs)};
  return h;
}

}  // namespace

void prepare_packed_messages(MPI_Comm comm, const Options& opts) {
  probe::use_probed_profile(comm, probe::probe_call(opts, nullptr, 0, Dtype::f64));
}

Result<PackedMessage> pack_message(const void* buf, size_t count, Dtype dtype, uint64_t key,
                                   const Options& opts) {
  const detail::CodecThreads threads;
  PackedMessage m;
  if (dtype != Dtype::f32 && dtype != Dtype::f64)
    return Status{ErrorCode::invalid_argument,
                  std::string("packed messages carry f32 or f64, not ") + codec::dtype_name(dtype)};
  detail::Endpoint e = detail::make_endpoint(buf, count, dtype, opts);
  COMMPRESS_RETURN_IF_ERROR(e.local);
  m.report.algorithm = Algorithm::Direct;
  m.report.codec = "none";
  m.report.raw_bytes = m.report.bytes_sent = e.wire.raw_bytes(count);
  m.report.predicted_seconds = e.predicted_seconds;
  const std::string name = e.wire.codec_name();
  if (e.algorithm == Algorithm::Mpi || e.declined || !e.wire.compressed() || count == 0 ||
      name.size() > kCodecNameSize)
    return m;
  auto resolved = detail::local_abs_bound(e.wire, buf, count);
  if (!resolved.ok()) return resolved.status();
  const detail::Wire& wire = *resolved;
  const size_t capacity = kPackedHeaderSize + wire.block_capacity(count) + 4;
  m.data.reset(new std::byte[capacity]);  // uninitialised: only what is written is sent
  std::byte* p = m.data.get();
  const auto* src = static_cast<const std::byte*>(buf);
  size_t pos = kPackedHeaderSize;
  for (size_t k = 0; k < wire.num_chunks(count); ++k) {
    const size_t n = wire.chunk_size(count, k);
    auto len = wire.encode_into(src + k * wire.chunk_bytes(), n,
                                std::span<std::byte>(p + pos, wire.frame_capacity(n)));
    if (!len.ok()) return len.status();
    pos += *len;
  }
  const size_t block = pos - kPackedHeaderSize, pad = padding_for(pos);
  if (pos + pad >= m.report.raw_bytes) {  // not smaller: the array travels as it is
    m.data.reset();
    return m;
  }
  std::memset(p, 0, kPackedHeaderSize);
  std::memset(p + pos, 0, pad);
  std::memcpy(p, kMagic, 4);
  core::store_le<uint8_t>(p + 4, kVersion);
  core::store_le<uint8_t>(p + 5, uint8_t(dtype));
  core::store_le<uint8_t>(p + 6, uint8_t(wire.lossy() ? opts.bound.mode : codec::BoundMode::lossless));
  core::store_le<uint8_t>(p + 7, uint8_t(pad));
  core::store_le<uint64_t>(p + 8, key);
  core::store_le<uint64_t>(p + 16, count);
  core::store_le<uint64_t>(p + 24, wire.chunk_elems());
  core::store_le<uint64_t>(p + 32, block);
  core::store_le<double>(p + 40, wire.lossy() ? opts.bound.value : 0.0);
  core::store_le<double>(p + 48, wire.abs_bound());
  std::memcpy(p + kCodecOffset, name.data(), name.size());
  core::store_le<uint64_t>(p + kChecksumOffset, header_checksum(p));
  m.size = pos + pad;
  m.report.codec = name;
  m.report.bytes_sent = m.size;
  m.report.guaranteed_abs_bound = wire.abs_bound();
  m.report.chunk_bytes = wire.chunk_bytes();
  return m;
}

Result<PackedInfo> packed_message_info(std::span<const std::byte> bytes, uint64_t key) {
  auto h = parse(bytes, key);
  if (!h.ok()) return h.status();
  return PackedInfo{size_t(h->count), h->dtype};
}

Result<Report> unpack_message(std::span<const std::byte> bytes, uint64_t key, void* out,
                              size_t capacity) {
  const detail::CodecThreads threads;
  auto parsed = parse(bytes, key);
  if (!parsed.ok()) return parsed.status();
  const Header& h = *parsed;
  if (h.count > capacity)
    return Status{ErrorCode::truncated, "the message holds " + std::to_string(h.count) +
                                            " elements, the receive room for " +
                                            std::to_string(capacity)};
  Options o;
  o.codec = h.codec;
  o.bound = h.mode == codec::BoundMode::lossless ? ErrorBound::lossless()
                                                 : ErrorBound{h.mode, h.requested};
  auto made = detail::Wire::make(o, h.dtype);
  if (!made.ok()) return made.status();
  detail::Wire wire = made->with_chunk_elems(size_t(h.chunk_elems));
  if (wire.lossy()) wire = wire.with_abs_bound(h.abs);
  COMMPRESS_RETURN_IF_ERROR(wire.decode_block(bytes.subspan(kPackedHeaderSize, h.block_bytes),
                                              out, size_t(h.count)));
  Report r;
  r.algorithm = Algorithm::Direct;
  r.codec = h.codec;
  r.raw_bytes = wire.raw_bytes(size_t(h.count));
  r.bytes_sent = bytes.size();
  r.guaranteed_abs_bound = wire.lossy() ? h.abs : 0.0;
  r.chunk_bytes = wire.chunk_bytes();
  return r;
}

}  // namespace commpress::comm
