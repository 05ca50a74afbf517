// What runs nonblocking collectives (commpress/nonblocking.hpp): a Task is one operation and
// its result; each communicator's ProgressQueue runs its tasks in the order they were posted
// on a thread of its own, over a duplicate of the communicator.
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct Task {
  std::function<Result<Report>(MPI_Comm)> run;
  std::function<void()> completed;  // after the result is set, on the finishing thread

  std::mutex m;
  std::condition_variable cv;
  std::optional<Result<Report>> result;  // set once

  bool done();
  Result<Report> wait();  // blocks until done; the result stays for later calls
  void finish(Result<Report> r);
};

// Posts task on comm's queue: on its progress thread under MPI_THREAD_MULTIPLE, else run to
// completion here. A task that cannot be posted (a null or freed communicator) finishes at
// once with the error.
void post(MPI_Comm comm, const std::shared_ptr<Task>& task);

bool threads_available();

}  // namespace commpress::comm::detail
