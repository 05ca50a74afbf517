// Always-on invariant check: a failure is a commpress bug, never bad user input.
#pragma once

#include <cstdio>
#include <cstdlib>

#define COMMPRESS_ASSERT(cond)                                                        \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "commpress: internal invariant failed: %s (%s:%d)\n", #cond, \
                   __FILE__, __LINE__);                                               \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
