// libFuzzer target for one decoder, chosen at build time by COMMPRESS_FUZZ_CODEC_ID (one
// executable per codec id). The input is a frame; before decoding, its codec id is forced to
// the target's and its payload length and checksum are recomputed, so mutations reach the
// payload decoder instead of being stopped by the checksum. The header's other fields (dtype,
// count, bounds) stay under the fuzzer's control and are validated as usual: every count is
// decoded, held to the limits in fuzz_limits.hpp.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "core/checksum.hpp"
#include "fuzz_limits.hpp"

#ifndef COMMPRESS_FUZZ_CODEC_ID
#error "define COMMPRESS_FUZZ_CODEC_ID to the codec id to fuzz"
#endif

namespace cc = commpress::codec;

namespace {

constexpr auto kCodecId = static_cast<cc::CodecId>(COMMPRESS_FUZZ_CODEC_ID);
constexpr size_t kPayloadLengthOffset = 32;
constexpr size_t kChecksumOffset = 48;

const cc::Codec* g_codec = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto codec = cc::codec_for_id(kCodecId);
  if (!codec.ok()) {
    // The build made a target for this id, so its codec must be in the library: a target
    // that passes while fuzzing nothing would hide the loss.
    std::fprintf(stderr, "fuzz_decode: %s\n", codec.status().message().c_str());
    std::exit(1);
  }
  g_codec = *codec;
  commpress::fuzz::cap_address_space();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < cc::kFrameHeaderSize) return 0;
  std::vector<std::byte> frame(size);
  std::memcpy(frame.data(), data, size);
  std::byte* p = frame.data();
  commpress::core::store_le<uint8_t>(p + 5, static_cast<uint8_t>(kCodecId));
  commpress::core::store_le<uint64_t>(p + kPayloadLengthOffset, size - cc::kFrameHeaderSize);
  std::span<const std::byte> payload(p + cc::kFrameHeaderSize, size - cc::kFrameHeaderSize);
  commpress::core::store_le<uint64_t>(
      p + kChecksumOffset, commpress::core::checksum64({p, kChecksumOffset}, payload));

  auto info = cc::inspect(frame);
  if (!info.ok()) return 0;
  commpress::fuzz::check_claim(*info);
  commpress::fuzz::LazyOutput out(info->count * cc::dtype_size(info->dtype));
  if (!out.ok()) return 0;
  (void)g_codec->decompress(frame, out.data(), info->count, info->dtype);
  return 0;
}
