#include "core/checksum.hpp"

#define XXH_STATIC_LINKING_ONLY  // for XXH3_state_t on the stack
#include <xxhash.h>

#include "core/assert.hpp"

namespace commpress::core {

uint64_t checksum64(std::span<const std::byte> first, std::span<const std::byte> second) {
  XXH3_state_t state;
  COMMPRESS_ASSERT(XXH3_64bits_reset(&state) == XXH_OK);
  XXH3_64bits_update(&state, first.data(), first.size());
  XXH3_64bits_update(&state, second.data(), second.size());
  return XXH3_64bits_digest(&state);
}

}  // namespace commpress::core
