// The state behind the ScaLAPACK-compatible entry points, which have no options argument and
// no status return: the options they run with and the last error on this thread.
#pragma once

#include <exception>
#include <string>

#include "commpress/linalg.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg::detail {

// The options set by set_scalapack_gemm_options, else those of the COMMPRESS_GEMM_*
// environment variables (read once); an invalid environment value is the error.
Result<GemmOptions> scalapack_gemm_options();

// Null algorithm / codec mean "auto" / "none"; rel_bound 0 means exact. Leaves the options
// unchanged on error.
Status set_scalapack_gemm_options(const char* algorithm, const char* codec, double rel_bound);

// Forgets the options set so far: the next call reads the environment again.
void reset_scalapack_gemm_options();

void record_last_error(const Status& st);
// ScaLAPACK's way for the entry points without a status return: records st and, on failure,
// prints "<routine>: <message>" to stderr (the same line on every process of the grid).
void finish_entry(const char* routine, const Status& st);

// Runs one entry point's body (returning a Status) and finishes it as above; an exception
// escaping the body becomes an internal error (nothing may cross the C boundary).
template <class Body>
void run_entry(const char* routine, Body&& body) {
  Status st;
  try {
    st = body();
  } catch (const std::exception& e) {
    st = {ErrorCode::internal, std::string("unexpected exception: ") + e.what()};
  }
  finish_entry(routine, st);
}
// The last recorded code (0 = ok); copies the message, NUL-terminated, into message[capacity].
int last_error(char* message, int capacity);

}  // namespace commpress::linalg::detail
