#include "comm/session/count_limit.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace commpress::comm::detail {

bool count_fits(size_t count, codec::Dtype dtype, size_t blocks) {
  const size_t per_block = kMaxBufferBytes / std::max<size_t>(codec::dtype_size(dtype), 1);
  return blocks == 0 || count <= per_block / blocks;
}

size_t saturating_blocks(size_t count, size_t blocks) {
  return blocks != 0 && count > SIZE_MAX / blocks ? SIZE_MAX : count * blocks;
}

Status check_count(const char* op, size_t count, codec::Dtype dtype, size_t blocks) {
  if (count_fits(count, dtype, blocks)) return {};
  std::string what = std::to_string(count) + " elements";
  if (blocks > 1) what += " per rank on " + std::to_string(blocks) + " ranks";
  return {ErrorCode::overflow, std::string(op) + ": " + what +
                                   " exceed the largest buffer commpress accepts (2^56 bytes)"};
}

}  // namespace commpress::comm::detail
