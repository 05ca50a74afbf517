// extern "C" shims over the nonblocking point-to-point operations: the C handle owns a
// comm::Request; commpress_wait completes it and frees the handle, as MPI_Wait resets an
// MPI_Request to MPI_REQUEST_NULL.
#include <memory>

#include "capi/capi_support.hpp"

using namespace commpress;
using namespace commpress::capi;

namespace {

// Posts the operation made by `start` into a new handle.
template <class Start>
commpress_status post(const char* function, commpress_request** request, Start&& start) {
  return guarded(function, [&] {
    if (request == nullptr) return null_argument(function, "request");
    *request = nullptr;
    auto handle = std::make_unique<commpress_request>();
    handle->request = start();
    *request = handle.release();
    return COMMPRESS_OK;
  });
}

}  // namespace

extern "C" {

commpress_status commpress_isend(const void* buf, size_t count, commpress_dtype dtype, int dest,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request) {
  return post("commpress_isend", request, [&] {
    return comm::isend(buf, count, to_dtype(dtype), dest, tag, comm, options_of(options));
  });
}

commpress_status commpress_irecv(void* buf, size_t count, commpress_dtype dtype, int source,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request) {
  return post("commpress_irecv", request, [&] {
    return comm::irecv(buf, count, to_dtype(dtype), source, tag, comm, options_of(options));
  });
}

commpress_status commpress_wait(commpress_request** request, commpress_report* report) {
  return guarded("commpress_wait", [&] {
    if (request == nullptr) {
      if (report) *report = commpress_report{};
      return null_argument("commpress_wait", "request");
    }
    if (*request == nullptr) return finish(comm::Report{}, report);
    std::unique_ptr<commpress_request> handle(*request);
    *request = nullptr;
    if (!handle->request.active()) return finish(comm::Report{}, report);
    return finish(handle->request.wait(), report);
  });
}

commpress_status commpress_test(commpress_request* request, int* flag) {
  return guarded("commpress_test", [&] {
    if (flag == nullptr) return null_argument("commpress_test", "flag");
    *flag = 0;
    if (request == nullptr) return null_argument("commpress_test", "request");
    *flag = request->request.test() ? 1 : 0;
    return COMMPRESS_OK;
  });
}

}  // extern "C"
