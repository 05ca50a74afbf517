// How commpress's own MPI waits behave on a progress thread (session/progress_queue.*).
// Open MPI's MPI_Wait polls without pause, so a progress thread waiting for a transfer keeps a
// core busy that the application's computation, the very thing the nonblocking collective is
// meant to overlap, needs: where the computation has every core, the transfer's whole
// duration is taken from it. A thread marked here instead tests its requests and sleeps between
// tests (short sleeps first, growing), so it holds a core only while it encodes, decodes or
// reduces; the caller's own thread keeps MPI's blocking waits.
#pragma once

#include <mpi.h>

#include <functional>

namespace commpress::comm::detail {

// Marks this thread as a progress thread for the guard's lifetime, whose waits sleep between
// tests (sleep) or poll in MPI's waits (COMMPRESS_PROGRESS=spin).
class YieldingWaits {
 public:
  explicit YieldingWaits(bool sleep = true);
  ~YieldingWaits();
  YieldingWaits(const YieldingWaits&) = delete;
  YieldingWaits& operator=(const YieldingWaits&) = delete;

 private:
  int before_;
};

bool waits_yield();  // whether this thread's waits sleep between tests

// Calls test() until it returns true: a few times at once, then sleeping between calls (short
// sleeps first, growing), whatever thread this is. For a wait whose test is more than one
// MPI_Test (e.g. a transfer in stages), where the core is wanted by other processes: ranks
// that outnumber the cores, whose waiting would otherwise take the cores from those that
// compute or move the bytes.
void sleep_until(const std::function<bool()>& test);
// MPI_Waitall through sleep_until, whatever thread this is.
int waitall_sleeping(int n, MPI_Request* reqs, MPI_Status* statuses);

// MPI_Waitall (statuses may be MPI_STATUSES_IGNORE), yielding where this thread's waits do.
int waitall_yielding(int n, MPI_Request* reqs, MPI_Status* statuses);
// MPI_Allreduce on the caller's thread; on a progress thread MPI_Iallreduce and
// waitall_yielding, whether its waits sleep or not, so that ranks whose progress threads wait
// differently still call matching collectives (a nonblocking collective never matches a
// blocking one).
int allreduce_yielding(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);
// The same for any collective whose nonblocking form gives the blocking one's result bit for
// bit (not MPI's own reductions of floating-point data: their algorithms, and so their
// rounding, differ): blocking() on the caller's thread, start() and a wait on a progress thread.
int collective_yielding(const std::function<int()>& blocking,
                        const std::function<int(MPI_Request*)>& start);

}  // namespace commpress::comm::detail
