// What Algorithm::Auto runs, one function per operation: the single place where the cost
// model (src/comm/select.*) hooks in. A forced algorithm passes through unchanged. Every
// rank must reach the same answer (the choice is agreed on afterwards, and a disagreement
// fails the call on every rank).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

Algorithm choose_p2p(const Options& opts, size_t count, Dtype dtype);
Algorithm choose_bcast(const Options& opts, size_t count, Dtype dtype, MPI_Comm comm);
Algorithm choose_allgather(const Options& opts, size_t count, Dtype dtype, MPI_Comm comm);
Algorithm choose_scatter(const Options& opts, size_t count, Dtype dtype, MPI_Comm comm);
Algorithm choose_gather(const Options& opts, size_t count, Dtype dtype, MPI_Comm comm);

}  // namespace commpress::comm::detail
