// libFuzzer target: frame parsing. Arbitrary bytes go through the header parser, the size
// peek, the description and the dispatching decoder; none may crash, leak or trip UBSan, and
// every count is decoded, held to the limits in fuzz_limits.hpp.
#include <cstddef>
#include <cstdint>

#include "commpress/codec.hpp"
#include "fuzz_limits.hpp"

namespace cc = commpress::codec;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  commpress::fuzz::cap_address_space();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  (void)cc::peek_frame_size(bytes);
  auto info = cc::inspect(bytes);
  if (!info.ok()) return 0;
  (void)cc::describe(*info);
  commpress::fuzz::check_claim(*info);
  commpress::fuzz::LazyOutput out(info->count * cc::dtype_size(info->dtype));
  if (!out.ok()) return 0;
  (void)cc::decompress(bytes, out.data(), info->count, info->dtype);
  return 0;
}
