// The intercepted collectives with MPI's C arguments, shared by the C entry points
// (collectives.cpp) and the Fortran ones (fortran_bindings.cpp). `pass` is the call as the
// caller's binding would have made it: PMPI_* for C, Open MPI's own Fortran routine for
// Fortran, so whatever commpress does not run behaves exactly as without the preload.
#pragma once

#include <mpi.h>

#include <type_traits>

namespace commpress::pmpi {

// A reference to the pass-through call, valid for the duration of the intercepted call: no
// allocation on the path every small call takes.
class Pass {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Pass>>>
  Pass(F&& f)  // NOLINT: converts from any callable, like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o) { return (*static_cast<std::remove_reference_t<F>*>(o))(); }) {}
  int operator()() const { return call_(object_); }

 private:
  void* object_;
  int (*call_)(void*);
};

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const Pass& pass);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const Pass& pass);
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const Pass& pass);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const Pass& pass);
int bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const Pass& pass);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass);
// The nonblocking forms (nonblocking_calls.cpp): `pass` posts the caller's binding's own
// nonblocking call; otherwise *request is a generalized request of the library's.
int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request* request, const Pass& pass);
int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request,
                          const Pass& pass);
int ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
           MPI_Request* request, const Pass& pass);
int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
               const Pass& pass);
int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request,
              const Pass& pass);

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass);

}  // namespace commpress::pmpi
