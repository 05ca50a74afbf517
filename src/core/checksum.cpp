#include "core/checksum.hpp"

// xxHash's own implementation compiled here rather than called in Debian's libxxhash: built
// with this build's instruction set it can take a wider vector path than the distribution's
// generic library, and every frame is hashed when written and when read
// (docs/measured-choices.md).
#define XXH_INLINE_ALL
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 flags AVX-512 intrinsics' own temporaries here (a known false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <xxhash.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

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
