// Nonblocking and persistent compressed collectives: the blocking verbs of commpress/comm.hpp
// started now and completed later, while the caller computes.
//
// Progress: where MPI was initialized with MPI_THREAD_MULTIPLE, each communicator that has a
// nonblocking operation gets one progress thread of commpress's, which runs that
// communicator's operations one after another in the order they were started, on a duplicate
// of the communicator (so they never match the caller's own traffic). They move while the
// caller computes, whatever it does; test() and wait() only look at the result. MPI's own
// progress inside test calls would not do: every step of a compressed collective encodes or
// decodes between messages, which only a thread can do while the caller computes.
// While it waits for the network the thread tests its requests and sleeps between tests
// (COMMPRESS_PROGRESS=thread, the default), so the caller's computation keeps the core;
// COMMPRESS_PROGRESS=spin waits in MPI's polling waits instead, COMMPRESS_PROGRESS=inline
// uses no thread (docs/environment.md).
// Without MPI_THREAD_MULTIPLE the operation runs to completion when it is started (correct,
// as MPI allows, but nothing overlaps): progress_thread_available() says which holds.
//
// Ordering and agreement are those of the blocking verbs: every rank starts the same
// operations on a communicator in the same order (as MPI requires of nonblocking
// collectives), the arguments are agreed when the operation runs, and a mismatch or one
// rank's bad argument makes every rank's wait() return the same error; none hangs.
// Operations on different communicators progress independently (one thread each). A
// communicator may be freed with operations in flight: they still complete (the thread works
// on its own duplicate), and MPI_Finalize waits for every thread.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "commpress/comm.hpp"

namespace commpress::comm {

namespace detail {
struct Task;
}

// Whether operations progress on a thread of their own (MPI_THREAD_MULTIPLE, and
// COMMPRESS_PROGRESS is not inline); false before MPI_Init.
bool progress_thread_available();

// COMMPRESS_PROGRESS as this process read it: an error naming a value that is none of
// thread, spin and inline (every nonblocking operation then fails with that error).
Status progress_mode_status();
// Whether it read `inline`: no thread of commpress's ever runs, so MPI need not provide
// MPI_THREAD_MULTIPLE for it. Valid before MPI_Init.
bool progress_inline();

// A nonblocking collective in flight (move-only). Destroying (or assigning over) an
// unfinished request waits for it.
class CollectiveRequest {
 public:
  CollectiveRequest();
  explicit CollectiveRequest(std::shared_ptr<detail::Task> task);
  ~CollectiveRequest();
  CollectiveRequest(CollectiveRequest&& other) noexcept;
  CollectiveRequest& operator=(CollectiveRequest&& other) noexcept;
  CollectiveRequest(const CollectiveRequest&) = delete;
  CollectiveRequest& operator=(const CollectiveRequest&) = delete;

  bool active() const { return task_ != nullptr; }  // false after wait() or when empty
  bool test() const;                                // never blocks: true when wait() returns at once
  Result<Report> wait();                            // the blocking verb's result

 private:
  std::shared_ptr<detail::Task> task_;
};

// Waits for every request (in any order of completion); the first failure in the span's
// order, else ok. reports (if given) receives one Report per request (empty for failures).
Status waitall(std::span<CollectiveRequest> requests, std::vector<Report>* reports = nullptr);

// The buffers must stay valid, and not be read (outputs) or written (inputs), until the
// request completes.
CollectiveRequest iallreduce(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                             MPI_Comm comm, const Options& opts = {});
CollectiveRequest ireduce_scatter_block(const void* send, void* recv, size_t count_per_rank,
                                        Dtype dtype, Op op, MPI_Comm comm,
                                        const Options& opts = {});
CollectiveRequest ibcast(void* buf, size_t count, Dtype dtype, int root, MPI_Comm comm,
                         const Options& opts = {});
CollectiveRequest iallgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                             MPI_Comm comm, const Options& opts = {});
CollectiveRequest ialltoall(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                            MPI_Comm comm, const Options& opts = {});
// The counts and displacements are copied at the call; the buffers are the caller's.
CollectiveRequest ialltoallv(const void* send, std::span<const size_t> send_counts,
                             std::span<const size_t> send_displs, void* recv,
                             std::span<const size_t> recv_counts,
                             std::span<const size_t> recv_displs, Dtype dtype, MPI_Comm comm,
                             const Options& opts = {});

// Any operation: `run` gets the communicator the operation must use (the progress thread's
// duplicate of comm) and runs on the progress thread; `completed` (if given) runs on the
// thread that finished the operation, right after its result is set (the PMPI library
// completes an MPI generalized request there).
CollectiveRequest start_on(MPI_Comm comm, std::function<Result<Report>(MPI_Comm)> run,
                           std::function<void()> completed = {});

// A persistent allreduce (MPI-4's MPI_Allreduce_init): the arguments are agreed once, at
// init (collective: a mismatch fails every rank there); the algorithm is decided once, by the
// first run (Auto looks at that run's data), and every later start runs it again with the
// same algorithm and chunk size.
class PersistentRequest {
 public:
  PersistentRequest() = default;
  PersistentRequest(PersistentRequest&&) noexcept = default;
  PersistentRequest& operator=(PersistentRequest&&) noexcept = default;
  ~PersistentRequest();  // waits for a started run

  // Starts one run on the current buffer contents; an error if one is already running.
  Status start();
  bool active() const { return run_.active(); }
  bool test() const { return run_.test(); }
  Result<Report> wait();
  // Auto until the first run completed; then what every later run uses.
  Algorithm algorithm() const { return opts_.algorithm; }

 private:
  friend Result<PersistentRequest> allreduce_init(const void*, void*, size_t, Dtype, Op,
                                                  MPI_Comm, const Options&);
  const void* send_ = nullptr;
  void* recv_ = nullptr;
  size_t count_ = 0;
  Dtype dtype_ = Dtype::f32;
  Op op_ = Op::sum;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Options opts_;
  CollectiveRequest run_;
};

Result<PersistentRequest> allreduce_init(const void* send, void* recv, size_t count, Dtype dtype,
                                         Op op, MPI_Comm comm, const Options& opts = {});

}  // namespace commpress::comm
