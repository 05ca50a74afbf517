// How commpress's own MPI waits behave on a progress thread (session/progress_queue.*).
// Open MPI's MPI_Wait polls without pause, so a progress thread waiting for a transfer keeps a
// core busy that the application's computation, the very thing the nonblocking collective is
// meant to overlap, needs: where the computation has every core, the transfer's whole
// duration is taken from it. A thread marked here instead tests its requests and sleeps between
// tests (short sleeps first, growing), so it holds a core only while it encodes, decodes or
// reduces; the caller's own thread keeps MPI's blocking waits.
#pragma once

#include <mpi.h>

namespace commpress::comm::detail {

// Marks this thread's waits as yielding for the guard's lifetime.
class YieldingWaits {
 public:
  YieldingWaits();
  ~YieldingWaits();
  YieldingWaits(const YieldingWaits&) = delete;
  YieldingWaits& operator=(const YieldingWaits&) = delete;

 private:
  bool before_;
};

bool waits_yield();  // whether this thread's waits yield

// MPI_Waitall (statuses may be MPI_STATUSES_IGNORE), yielding where this thread's waits do.
int waitall_yielding(int n, MPI_Request* reqs, MPI_Status* statuses);
// MPI_Allreduce; where waits yield, MPI_Iallreduce and a yielding wait.
int allreduce_yielding(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);

}  // namespace commpress::comm::detail
