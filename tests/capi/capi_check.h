/* Assertions for the C API tests: a failed check prints where and why and is counted, so a
 * test runs to the end and exits non-zero if anything failed. */
#ifndef COMMPRESS_CAPI_CHECK_H
#define COMMPRESS_CAPI_CHECK_H

#include <stdio.h>

#include "commpress.h"

static int capi_failures = 0;
static int capi_rank = 0; /* tags messages in the MPI test */

#define CHECK(cond, ...)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      ++capi_failures;                                                                \
      fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: ", capi_rank, __FILE__,    \
              __LINE__, #cond);                                                       \
      fprintf(stderr, __VA_ARGS__);                                                   \
      fprintf(stderr, "\n");                                                          \
    }                                                                                 \
  } while (0)

/* A call expected to succeed; on failure names the status and the library's message. */
#define CHECK_OK(call)                                                                \
  do {                                                                                \
    commpress_status capi_st_ = (call);                                               \
    CHECK(capi_st_ == COMMPRESS_OK, "%s returned %s: %s", #call,                     \
          commpress_status_name(capi_st_), commpress_last_error());                   \
  } while (0)

/* A call expected to fail with one status (or another acceptable one). */
#define CHECK_STATUS(call, expected)                                                  \
  do {                                                                                \
    commpress_status capi_st_ = (call);                                               \
    CHECK(capi_st_ == (expected), "%s returned %s, expected %s (message: %s)", #call, \
          commpress_status_name(capi_st_), commpress_status_name(expected),          \
          commpress_last_error());                                                    \
  } while (0)

#endif /* COMMPRESS_CAPI_CHECK_H */
