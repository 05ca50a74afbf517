// COMMPRESS_DEBUG=1: one line per call on a communicator with an active policy (what ran, or
// why it passed through) and a summary at MPI_Finalize; COMMPRESS_DEBUG_JSON=<file>: the same
// summary and rank 0's calls as JSON, written by rank 0. The counters are kept either way.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "commpress/comm.hpp"
#include "pmpi/policy.hpp"

namespace commpress::pmpi {

struct CallFacts {
  const char* mpi_name;  // "MPI_Allreduce"
  unsigned op;           // OpBit
  size_t count;          // elements of the call's whole vector
  MPI_Datatype type;
  MPI_Op reduction;      // MPI_OP_NULL where the call reduces nothing
  size_t bytes;          // count * type size
  int peer = -1;         // point-to-point: the other rank (in the call's communicator)
  bool received = false; // a receive that decoded a message: a line, not counted again
};

void record_intercepted(const CallFacts& call, const comm::Report& report, const Policy& policy,
                        double seconds);
void record_passed(const CallFacts& call, const std::string& reason);
// This thread's calls are nonblocking ones run by a progress thread: named MPI_I<name>.
void log_as_nonblocking();
// A call below the size threshold: counted, and described only under COMMPRESS_DEBUG (the
// path every small call takes allocates nothing).
void record_small(const CallFacts& call, size_t min_bytes);

// Collective over MPI_COMM_WORLD (through PMPI_*), before PMPI_Finalize: sums the ranks'
// counters and prints / writes the summary at rank 0.
void finish_call_log(const std::string& policy_text);

}  // namespace commpress::pmpi
