/* Deterministic synthetic values, a pure function of an element's global index, so every
 * rank count and every run generates the same data without communicating. */
#ifndef COMMPRESS_APPS_APP_DATA_H
#define COMMPRESS_APPS_APP_DATA_H

#include <stdint.h>

/* A uniform number in [0, 1) from (index, stream): splitmix64's finaliser. */
static inline double app_uniform(uint64_t index, uint64_t stream) {
  uint64_t z = index * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* A standard normal number (Box-Muller on two streams). */
double app_normal(uint64_t index, uint64_t stream);

#endif
