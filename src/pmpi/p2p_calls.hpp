// The intercepted point-to-point calls with MPI's C arguments (p2p_calls.cpp); `pass` is the
// call as the caller's binding makes it, for whatever commpress leaves to MPI.
#pragma once

#include <mpi.h>

#include "pmpi/collective_calls.hpp"  // Pass

namespace commpress::pmpi {

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
         const Pass& pass);
int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* request, const Pass& pass);
int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status, const Pass& pass);
int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* request, const Pass& pass);

}  // namespace commpress::pmpi
