// Completes the library's own point-to-point requests in the background: the receive that
// an intercepted MPI_Irecv posted (decoded, then its generalized request completed) and the
// send of a packed message that an intercepted MPI_Isend posted (its buffer freed). One
// thread per process tests them (PMPI_Testsome, backing off while nothing completes), so
// the application's MPI_Wait / MPI_Test / MPI_Waitall / MPI_Waitany / ... on its
// generalized request work unchanged, in any order and mixed with its own requests.
#pragma once

#include <mpi.h>

#include <memory>

namespace commpress::pmpi {

class P2pWork {
 public:
  virtual ~P2pWork() = default;
  MPI_Request inner = MPI_REQUEST_NULL;  // the library's PMPI request
  bool cancel_sent = false;
  virtual bool is_receive() const = 0;
  // MPI_Cancel reached the application's request: the thread cancels inner (only the thread
  // touches inner once it is handed over).
  virtual bool wants_cancel() const { return false; }
  // Runs on the progress thread once inner completed (the status PMPI gave it).
  virtual void finished(const MPI_Status& status) = 0;
};

// Hands w over (w->inner posted); its finished() runs on the progress thread.
void progress_p2p(std::unique_ptr<P2pWork> w);
// MPI_Finalize: waits for the sends in flight, cancels receives nobody completed, and ends
// the thread.
void stop_p2p_progress();

}  // namespace commpress::pmpi
