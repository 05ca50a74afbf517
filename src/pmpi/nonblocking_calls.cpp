// The nonblocking collectives: MPI_Iallreduce, MPI_Ireduce_scatter_block, MPI_Ibcast,
// MPI_Iallgather, MPI_Ialltoall. An intercepted call returns an MPI generalized request
// (MPI_Grequest_start); the communicator's progress thread (commpress/nonblocking.hpp) runs
// the blocking wrapper of collectives.cpp on its duplicate of the communicator, which agrees
// with the other ranks, compresses or hands the call to MPI exactly as the blocking call
// would, and then completes the request (MPI_Grequest_complete).
//
// Why generalized requests and not a map of commpress's requests intercepted in the
// completion calls: the application's request is then an MPI request like any other, so
// every completion call (MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Waitsome,
// MPI_Testall, ..., MPI_Request_free, MPI_Request_get_status, the Fortran forms), mixed
// freely with the application's own requests, works unchanged; a map would have to intercept
// each of them and reimplement their mixed cases. A generalized request completes only when
// someone calls MPI_Grequest_complete, so it needs the progress thread: where MPI gives no
// MPI_THREAD_MULTIPLE (MPI_Init asks for it when a policy is set, init_finalize.cpp) the calls
// go to PMPI_I* untouched, as do calls outside the policy or below its size threshold.
#include <mpi.h>

#include <functional>

#include "commpress/nonblocking.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/collective_calls.hpp"
#include "pmpi/intercept.hpp"
#include "pmpi/request_status.hpp"

namespace commpress::pmpi {

namespace {

struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;  // the generalized request the application holds
  int error = MPI_ERR_INTERN;              // until the operation ran (set before completion)
  comm::CollectiveRequest run;
};

int query(void* extra, MPI_Status* status) {
  const int error = static_cast<Pending*>(extra)->error;
  set_status(status, MPI_UNDEFINED, MPI_UNDEFINED, 0, error);
  return error;
}

int free_pending(void* extra) {
  delete static_cast<Pending*>(extra);  // completed: its run's result is there
  return MPI_SUCCESS;
}

int cancel(void*, int) { return MPI_SUCCESS; }  // a started collective is not cancelled

// Whether the call goes to commpress's progress thread (else to PMPI_I* at once).
const Policy* takes(MPI_Comm comm, unsigned bit, const char* mpi_name, size_t count,
                    MPI_Datatype type, MPI_Op op) {
  const Policy* p = active_policy(comm, bit);
  if (!p || count == 0 || !comm::progress_thread_available()) return nullptr;
  return large_enough(*p, {mpi_name, bit, count, type, op, bytes_of(count, type)}) ? p : nullptr;
}

// blocking(dup) runs on the progress thread: the blocking wrapper on the duplicate.
int start(MPI_Comm comm, std::function<int(MPI_Comm)> blocking, MPI_Request* request) {
  Bypass inside;  // the duplicate communicator made at the first call is commpress's own
  auto* p = new Pending;
  const int rc = PMPI_Grequest_start(query, free_pending, cancel, p, &p->request);
  if (rc != MPI_SUCCESS) {
    delete p;
    return rc;
  }
  *request = p->request;
  p->run = comm::start_on(
      comm,
      [p, blocking = std::move(blocking)](MPI_Comm dup) {
        log_as_nonblocking();
        p->error = blocking(dup);
        return Result<comm::Report>(comm::Report{});
      },
      [p] {
        MPI_Request r = p->request;  // p may be freed once the request completes
        PMPI_Grequest_complete(r);
      });
  return MPI_SUCCESS;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size;
}

// Iallgather and Ialltoall: the same arguments, one block per rank.
struct BlocksCall {
  const char* mpi_name;
  unsigned bit;
  int (*wrapper)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, const Pass&);
  int (*blocking)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
};

int blocks_per_rank(const BlocksCall& call, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request, const Pass& pass) {
  if (recvcount <= 0 || !takes(comm, call.bit, call.mpi_name,
                               size_t(recvcount) * size_t(comm_size(comm)), recvtype, MPI_OP_NULL))
    return pass();
  return start(comm, [=](MPI_Comm dup) {
    return call.wrapper(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, dup, [&] {
      return call.blocking(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, dup);
    });
  }, request);
}

}  // namespace

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request, const Pass& pass) {
  if (count <= 0 || !takes(comm, kAllreduce, "MPI_Iallreduce", size_t(count), datatype, op))
    return pass();
  return start(comm, [=](MPI_Comm dup) {
    return allreduce(sendbuf, recvbuf, count, datatype, op, dup, [&] {
      return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, dup);
    });
  }, request);
}

int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request,
                          const Pass& pass) {
  if (recvcount <= 0 ||
      !takes(comm, kReduceScatterBlock, "MPI_Ireduce_scatter_block",
             size_t(recvcount) * size_t(comm_size(comm)), datatype, op))
    return pass();
  return start(comm, [=](MPI_Comm dup) {
    return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, dup, [&] {
      return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, dup);
    });
  }, request);
}

int ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
           MPI_Request* request, const Pass& pass) {
  if (count <= 0 || !takes(comm, kBcast, "MPI_Ibcast", size_t(count), datatype, MPI_OP_NULL))
    return pass();
  return start(comm, [=](MPI_Comm dup) {
    return bcast(buffer, count, datatype, root, dup,
                 [&] { return PMPI_Bcast(buffer, count, datatype, root, dup); });
  }, request);
}

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
               const Pass& pass) {
  return blocks_per_rank({"MPI_Iallgather", kAllgather, &allgather, &PMPI_Allgather}, sendbuf,
                         sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, pass);
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
              const Pass& pass) {
  return blocks_per_rank({"MPI_Ialltoall", kAlltoall, &alltoall, &PMPI_Alltoall}, sendbuf,
                         sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, pass);
}

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

extern "C" {

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, [&] {
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  });
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  return ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request, [&] {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  return ibcast(buffer, count, datatype, root, comm, request,
                [&] { return PMPI_Ibcast(buffer, count, datatype, root, comm, request); });
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, [&] {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
  });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, [&] {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  });
}

}  // extern "C"
