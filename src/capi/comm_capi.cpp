// extern "C" shims over the blocking point-to-point operations and the collectives. Buffers
// and enum values pass through unchecked on purpose: the C++ collectives validate them on
// every rank and agree on one verdict, so a NULL buffer or a bad op on one rank fails every
// rank instead of leaving the others waiting.
#include "capi/capi_support.hpp"

using namespace commpress;
using namespace commpress::capi;

extern "C" {

commpress_status commpress_send(const void* buf, size_t count, commpress_dtype dtype, int dest,
                                int tag, MPI_Comm comm, const commpress_options* options,
                                commpress_report* report) {
  return guarded("commpress_send", [&] {
    return finish(comm::send(buf, count, to_dtype(dtype), dest, tag, comm, options_of(options)),
                  report);
  });
}

commpress_status commpress_recv(void* buf, size_t count, commpress_dtype dtype, int source,
                                int tag, MPI_Comm comm, const commpress_options* options,
                                commpress_report* report) {
  return guarded("commpress_recv", [&] {
    return finish(
        comm::recv(buf, count, to_dtype(dtype), source, tag, comm, options_of(options)), report);
  });
}

commpress_status commpress_bcast(void* buf, size_t count, commpress_dtype dtype, int root,
                                 MPI_Comm comm, const commpress_options* options,
                                 commpress_report* report) {
  return guarded("commpress_bcast", [&] {
    return finish(comm::bcast(buf, count, to_dtype(dtype), root, comm, options_of(options)),
                  report);
  });
}

commpress_status commpress_allgather(const void* send, void* recv, size_t count_per_rank,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report) {
  return guarded("commpress_allgather", [&] {
    return finish(comm::allgather(send, recv, count_per_rank, to_dtype(dtype), comm,
                                  options_of(options)),
                  report);
  });
}

commpress_status commpress_scatter(const void* send, void* recv, size_t count_per_rank,
                                   commpress_dtype dtype, int root, MPI_Comm comm,
                                   const commpress_options* options, commpress_report* report) {
  return guarded("commpress_scatter", [&] {
    return finish(comm::scatter(send, recv, count_per_rank, to_dtype(dtype), root, comm,
                                options_of(options)),
                  report);
  });
}

commpress_status commpress_gather(const void* send, void* recv, size_t count_per_rank,
                                  commpress_dtype dtype, int root, MPI_Comm comm,
                                  const commpress_options* options, commpress_report* report) {
  return guarded("commpress_gather", [&] {
    return finish(comm::gather(send, recv, count_per_rank, to_dtype(dtype), root, comm,
                               options_of(options)),
                  report);
  });
}

commpress_status commpress_reduce_scatter_block(const void* send, void* recv,
                                                size_t count_per_rank, commpress_dtype dtype,
                                                commpress_op op, MPI_Comm comm,
                                                const commpress_options* options,
                                                commpress_report* report) {
  return guarded("commpress_reduce_scatter_block", [&] {
    return finish(comm::reduce_scatter_block(send, recv, count_per_rank, to_dtype(dtype),
                                             to_op(op), comm, options_of(options)),
                  report);
  });
}

commpress_status commpress_allreduce(const void* send, void* recv, size_t count,
                                     commpress_dtype dtype, commpress_op op, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report) {
  return guarded("commpress_allreduce", [&] {
    return finish(comm::allreduce(send, recv, count, to_dtype(dtype), to_op(op), comm,
                                  options_of(options)),
                  report);
  });
}

commpress_status commpress_reduce(const void* send, void* recv, size_t count,
                                  commpress_dtype dtype, commpress_op op, int root,
                                  MPI_Comm comm, const commpress_options* options,
                                  commpress_report* report) {
  return guarded("commpress_reduce", [&] {
    return finish(comm::reduce(send, recv, count, to_dtype(dtype), to_op(op), root, comm,
                               options_of(options)),
                  report);
  });
}

commpress_status commpress_alltoall(const void* send, void* recv, size_t count_per_rank,
                                    commpress_dtype dtype, MPI_Comm comm,
                                    const commpress_options* options, commpress_report* report) {
  return guarded("commpress_alltoall", [&] {
    return finish(comm::alltoall(send, recv, count_per_rank, to_dtype(dtype), comm,
                                 options_of(options)),
                  report);
  });
}

commpress_status commpress_alltoallv(const void* send, const size_t* send_counts,
                                     const size_t* send_displs, void* recv,
                                     const size_t* recv_counts, const size_t* recv_displs,
                                     commpress_dtype dtype, MPI_Comm comm,
                                     const commpress_options* options, commpress_report* report) {
  return guarded("commpress_alltoallv", [&] {
    int p = 0;
    if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);
    // A null array is an empty span: the C++ call refuses it on every rank alike.
    auto span = [p](const size_t* a) {
      return a ? std::span<const size_t>(a, size_t(p)) : std::span<const size_t>();
    };
    return finish(comm::alltoallv(send, span(send_counts), span(send_displs), recv,
                                  span(recv_counts), span(recv_displs), to_dtype(dtype), comm,
                                  options_of(options)),
                  report);
  });
}

}  // extern "C"
