// extern "C" shims over the nonblocking operations: the C handle owns a comm::Request
// (point-to-point), a comm::CollectiveRequest or a comm::PersistentRequest; commpress_wait
// completes it and frees the handle, as MPI_Wait resets an MPI_Request to MPI_REQUEST_NULL
// (a persistent one stays, as in MPI, until commpress_request_free).
#include <memory>

#include "capi/capi_support.hpp"

using namespace commpress;
using namespace commpress::capi;

namespace {

// Starts the operation `start` puts into a new handle.
template <class Start>
commpress_status post(const char* function, commpress_request** request, Start&& start) {
  return guarded(function, [&] {
    if (request == nullptr) return null_argument(function, "request");
    *request = nullptr;
    auto handle = std::make_unique<commpress_request>();
    start(*handle);
    *request = handle.release();
    return COMMPRESS_OK;
  });
}

}  // namespace

extern "C" {

commpress_status commpress_isend(const void* buf, size_t count, commpress_dtype dtype, int dest,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request) {
  return post("commpress_isend", request, [&](commpress_request& h) {
    h.request = comm::isend(buf, count, to_dtype(dtype), dest, tag, comm, options_of(options));
  });
}

commpress_status commpress_irecv(void* buf, size_t count, commpress_dtype dtype, int source,
                                 int tag, MPI_Comm comm, const commpress_options* options,
                                 commpress_request** request) {
  return post("commpress_irecv", request, [&](commpress_request& h) {
    h.request = comm::irecv(buf, count, to_dtype(dtype), source, tag, comm, options_of(options));
  });
}

commpress_status commpress_wait(commpress_request** request, commpress_report* report) {
  return guarded("commpress_wait", [&] {
    if (request == nullptr) {
      if (report) *report = commpress_report{};
      return null_argument("commpress_wait", "request");
    }
    if (*request == nullptr) return finish(comm::Report{}, report);
    if ((*request)->is_persistent) {
      if (!(*request)->persistent.active()) return finish(comm::Report{}, report);
      return finish((*request)->persistent.wait(), report);
    }
    std::unique_ptr<commpress_request> handle(*request);
    *request = nullptr;
    if (handle->collective.active()) return finish(handle->collective.wait(), report);
    if (!handle->request.active()) return finish(comm::Report{}, report);
    return finish(handle->request.wait(), report);
  });
}

commpress_status commpress_test(commpress_request* request, int* flag) {
  return guarded("commpress_test", [&] {
    if (flag == nullptr) return null_argument("commpress_test", "flag");
    *flag = 0;
    if (request == nullptr) return null_argument("commpress_test", "request");
    *flag = request->is_persistent        ? request->persistent.test()
            : request->collective.active() ? request->collective.test()
                                           : request->request.test();
    return COMMPRESS_OK;
  });
}

int commpress_progress_thread_available(void) {
  return comm::progress_thread_available() ? 1 : 0;
}

commpress_status commpress_iallreduce(const void* send, void* recv, size_t count,
                                      commpress_dtype dtype, commpress_op op, MPI_Comm comm,
                                      const commpress_options* options,
                                      commpress_request** request) {
  return post("commpress_iallreduce", request, [&](commpress_request& h) {
    h.collective = comm::iallreduce(send, recv, count, to_dtype(dtype), to_op(op), comm,
                                    options_of(options));
  });
}

commpress_status commpress_ireduce_scatter_block(const void* send, void* recv,
                                                 size_t count_per_rank, commpress_dtype dtype,
                                                 commpress_op op, MPI_Comm comm,
                                                 const commpress_options* options,
                                                 commpress_request** request) {
  return post("commpress_ireduce_scatter_block", request, [&](commpress_request& h) {
    h.collective = comm::ireduce_scatter_block(send, recv, count_per_rank, to_dtype(dtype),
                                               to_op(op), comm, options_of(options));
  });
}

commpress_status commpress_ibcast(void* buf, size_t count, commpress_dtype dtype, int root,
                                  MPI_Comm comm, const commpress_options* options,
                                  commpress_request** request) {
  return post("commpress_ibcast", request, [&](commpress_request& h) {
    h.collective = comm::ibcast(buf, count, to_dtype(dtype), root, comm, options_of(options));
  });
}

commpress_status commpress_iallgather(const void* send, void* recv, size_t count_per_rank,
                                      commpress_dtype dtype, MPI_Comm comm,
                                      const commpress_options* options,
                                      commpress_request** request) {
  return post("commpress_iallgather", request, [&](commpress_request& h) {
    h.collective = comm::iallgather(send, recv, count_per_rank, to_dtype(dtype), comm,
                                    options_of(options));
  });
}

commpress_status commpress_ialltoall(const void* send, void* recv, size_t count_per_rank,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options,
                                     commpress_request** request) {
  return post("commpress_ialltoall", request, [&](commpress_request& h) {
    h.collective = comm::ialltoall(send, recv, count_per_rank, to_dtype(dtype), comm,
                                   options_of(options));
  });
}

commpress_status commpress_waitall(size_t count, commpress_request** requests,
                                   commpress_report* reports) {
  if (count > 0 && requests == nullptr) return null_argument("commpress_waitall", "requests");
  commpress_status first = COMMPRESS_OK;
  for (size_t i = 0; i < count; ++i) {
    commpress_status st = commpress_wait(&requests[i], reports ? &reports[i] : nullptr);
    if (first == COMMPRESS_OK) first = st;
  }
  return first;
}

commpress_status commpress_allreduce_init(const void* send, void* recv, size_t count,
                                          commpress_dtype dtype, commpress_op op,
                                          MPI_Comm comm, const commpress_options* options,
                                          commpress_request** request) {
  return guarded("commpress_allreduce_init", [&] {
    if (request == nullptr) return null_argument("commpress_allreduce_init", "request");
    *request = nullptr;
    auto p = comm::allreduce_init(send, recv, count, to_dtype(dtype), to_op(op), comm,
                                  options_of(options));
    if (!p.ok()) return record(p.status());
    auto handle = std::make_unique<commpress_request>();
    handle->persistent = std::move(*p);
    handle->is_persistent = true;
    *request = handle.release();
    return COMMPRESS_OK;
  });
}

commpress_status commpress_start(commpress_request* request) {
  return guarded("commpress_start", [&] {
    if (request == nullptr) return null_argument("commpress_start", "request");
    if (!request->is_persistent)
      return fail(ErrorCode::invalid_argument,
                  "commpress_start: the request is not persistent (commpress_allreduce_init)");
    return record(request->persistent.start());
  });
}

commpress_status commpress_request_free(commpress_request** request) {
  return guarded("commpress_request_free", [&] {
    if (request == nullptr) return null_argument("commpress_request_free", "request");
    std::unique_ptr<commpress_request> handle(*request);  // its destructors wait
    *request = nullptr;
    return COMMPRESS_OK;
  });
}

}  // extern "C"
