// Every rank of a communicator must run the same policy: a rank compressing an allreduce
// that another passes to MPI would leave both waiting on different messages. Checked once
// over MPI_COMM_WORLD at MPI_Init and on each MPI_Comm_set_info carrying commpress keys.
#pragma once

#include <mpi.h>

#include <string>

#include "commpress/status.hpp"

namespace commpress::pmpi {

// Collective over comm (through PMPI_*). `text` is this rank's canonical policy, or its
// parse error. Fails on every rank alike when the texts differ, or one is an error, with a
// message naming the ranks and their values ("ranks 0-2: ...; rank 3: ...").
// With timeout_seconds > 0 the exchange is nonblocking and gives up after that long
// (ErrorCode::mpi): a rank that does not run this library never joins it, and its peers
// then say so instead of waiting forever.
Status agree_policy(MPI_Comm comm, const std::string& text, bool valid,
                    double timeout_seconds = 0);

}  // namespace commpress::pmpi
