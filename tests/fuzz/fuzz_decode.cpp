// libFuzzer target for one decoder, chosen at build time by COMMPRESS_FUZZ_CODEC_ID (one
// executable per codec id). The input is a frame; before decoding, its codec id is forced to
// the target's and its payload length and checksum are recomputed, so mutations reach the
// payload decoder instead of being stopped by the checksum. The header's other fields (dtype,
// count, bounds) stay under the fuzzer's control and are validated as usual.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "commpress/codec.hpp"
#include "core/byte_io.hpp"
#include "core/checksum.hpp"

#ifndef COMMPRESS_FUZZ_CODEC_ID
#error "define COMMPRESS_FUZZ_CODEC_ID to the codec id to fuzz"
#endif

namespace cc = commpress::codec;

namespace {

constexpr auto kCodecId = static_cast<cc::CodecId>(COMMPRESS_FUZZ_CODEC_ID);
constexpr size_t kPayloadLengthOffset = 32;
constexpr size_t kChecksumOffset = 48;
constexpr uint64_t kMaxCount = uint64_t{1} << 20;  // keeps the destination small

const cc::Codec* g_codec = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto codec = cc::codec_for_id(kCodecId);
  if (!codec.ok()) {
    // The id exists in the format but no codec is built for it yet: nothing to fuzz.
    std::fprintf(stderr, "fuzz_decode: %s; skipping\n", codec.status().message().c_str());
    std::exit(0);
  }
  g_codec = *codec;
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
  if (!info.ok() || info->count > kMaxCount) return 0;
  std::vector<std::byte> out(info->count * cc::dtype_size(info->dtype));
  (void)g_codec->decompress(frame, out.data(), info->count, info->dtype);
  return 0;
}
