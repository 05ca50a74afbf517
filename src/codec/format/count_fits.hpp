// The one refusal every codec's check_count_fits shares: a payload shorter than the fewest
// bytes that format can code the frame's element count in. Frames that fail it are forged
// or damaged, and refusing them before decoding keeps a header's count from sizing memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "commpress/codec.hpp"

namespace commpress::codec::detail {

inline Status require_payload(uint64_t payload_bytes, uint64_t least, const FrameInfo& info,
                              std::string_view codec) {
  if (payload_bytes >= least) return {};
  return {ErrorCode::corrupt_frame,
          std::string(codec) + " payload of " + std::to_string(payload_bytes) +
              " bytes cannot hold " + std::to_string(info.count) + " " + dtype_name(info.dtype) +
              " elements (it needs at least " + std::to_string(least) + ")"};
}

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

}  // namespace commpress::codec::detail
