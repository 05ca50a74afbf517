// libFuzzer target: frame parsing. Arbitrary bytes go through the header parser, the size
// peek, the description and the dispatching decoder; none may crash, leak or trip UBSan.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "commpress/codec.hpp"

namespace cc = commpress::codec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  (void)cc::peek_frame_size(bytes);
  auto info = cc::inspect(bytes);
  if (!info.ok()) return 0;
  (void)cc::describe(*info);
  // Keep allocations small; larger counts are the decoders' concern (fuzz_decode_*).
  if (info->count > (size_t{1} << 20)) return 0;
  std::vector<std::byte> out(info->count * cc::dtype_size(info->dtype));
  (void)cc::decompress(bytes, out.data(), info->count, info->dtype);
  return 0;
}
