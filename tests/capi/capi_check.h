/* Assertions for the C API tests: a failed check prints where and why (one line, tagged by
 * rank) and is counted, so a test runs to the end and exits non-zero if anything failed. */
#ifndef COMMPRESS_CAPI_CHECK_H
#define COMMPRESS_CAPI_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "commpress.h"

static int capi_failures = 0;
static int capi_rank = 0; /* tags messages in the MPI test */

/* One fprintf per failure, so lines of different ranks do not interleave. */
static void capi_fail(const char* file, int line, const char* cond, const char* fmt, ...) {
  char why[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(why, sizeof why, fmt, args);
  va_end(args);
  ++capi_failures;
  fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: %s\n", capi_rank, file, line, cond, why);
}

#define CHECK(cond, ...)                                           \
  do {                                                             \
    if (!(cond)) capi_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

/* A call expected to succeed; on failure names the status and the library's message. */
#define CHECK_OK(call)                                                                \
  do {                                                                                \
    commpress_status capi_st_ = (call);                                               \
    CHECK(capi_st_ == COMMPRESS_OK, "%s returned %s: %s", #call,                     \
          commpress_status_name(capi_st_), commpress_last_error());                   \
  } while (0)

/* A call expected to fail with one particular status. */
#define CHECK_STATUS(call, expected)                                                  \
  do {                                                                                \
    commpress_status capi_st_ = (call);                                               \
    CHECK(capi_st_ == (expected), "%s returned %s, expected %s (message: %s)", #call, \
          commpress_status_name(capi_st_), commpress_status_name(expected),          \
          commpress_last_error());                                                    \
  } while (0)

#endif /* COMMPRESS_CAPI_CHECK_H */
