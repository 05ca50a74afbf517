// Frame checksum: XXH3-64 (xxhash), fast enough to stay well below codec cost.
#pragma once

#include <cstdint>
#include <span>

namespace commpress::core {

// Checksum of two byte ranges hashed as one stream (frame header fields, then payload).
uint64_t checksum64(std::span<const std::byte> first, std::span<const std::byte> second);

}  // namespace commpress::core
