// COMMPRESS_DEBUG, read once, for both preload libraries: on when set, non-empty and not "0".
#pragma once

#include <cstdlib>
#include <cstring>

namespace commpress::pmpi {

inline bool debug_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("COMMPRESS_DEBUG");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return on;
}

}  // namespace commpress::pmpi
