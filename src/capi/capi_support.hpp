// What every C shim shares: the conversion of Status to commpress_status (recording the
// thread's last error), a guard that keeps C++ exceptions from crossing into C, and the
// mapping of C enum values onto the C++ ones.
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "commpress.h"
#include "commpress/codec.hpp"
#include "commpress/comm.hpp"
#include "commpress/nonblocking.hpp"
#include "commpress/status.hpp"

// The opaque handles of commpress.h.
struct commpress_options {
  commpress::comm::Options options;
};

// One of: a point-to-point operation, a nonblocking collective, or a persistent collective
// (which commpress_wait completes but does not free, as MPI_Wait a persistent request).
struct commpress_request {
  commpress::comm::Request request;
  commpress::comm::CollectiveRequest collective;
  commpress::comm::PersistentRequest persistent;
  bool is_persistent = false;
};

namespace commpress::capi {

// Records a failing status as this thread's last error; returns its C code.
commpress_status record(const Status& status);
commpress_status fail(ErrorCode code, std::string message);

// Runs body (returning commpress_status); an escaping exception becomes COMMPRESS_INTERNAL
// with a message naming the function, since nothing may unwind into C frames.
template <class Body>
commpress_status guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    try {
      return fail(ErrorCode::internal, std::string(function) + ": " + e.what());
    } catch (...) {
      return COMMPRESS_INTERNAL;
    }
  } catch (...) {
    return COMMPRESS_INTERNAL;
  }
}

// A null pointer where the call needs one.
commpress_status null_argument(const char* function, const char* parameter);

// Out-of-range C values map to values the C++ layer rejects with a clear message (in
// collectives, on every rank together), never to a valid neighbour by truncation.
codec::Dtype to_dtype(commpress_dtype d);
comm::Op to_op(commpress_op op);
// Whether a C algorithm value is Auto or a row of the algorithm table.
bool known_algorithm(commpress_algorithm a);
// Checks a dtype where the call is local (codecs): INVALID_ARGUMENT naming the value.
Status check_dtype(commpress_dtype d);
// The bound a (mode, value) pair means; value is ignored when lossless. Only the mode is
// checked here: the value is refused (on every rank alike) by the call that uses it.
Result<codec::ErrorBound> to_bound(commpress_bound_mode mode, double value);

// The options a call uses: the handle's, or the defaults for NULL.
const comm::Options& options_of(const commpress_options* options);

// Copies a name into a fixed C array, truncating and always terminating.
void copy_name(std::string_view name, char (&out)[COMMPRESS_NAME_MAX]);

// Fills *report (if wanted) from a call's result: the report, or zeros on failure.
commpress_status finish(const Result<comm::Report>& result, commpress_report* report);

}  // namespace commpress::capi
