// What Algorithm::Auto runs for the reductions, one function per operation: the place where
// the cost model hooks in. A forced algorithm passes through unchanged. Every rank must reach
// the same answer (the choice is agreed on afterwards; a disagreement fails every rank).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "comm/detail/choose.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Below this many bytes a transfer is not worth compressing: Rabenseifner sends smaller
// ranges raw and Auto picks MPI's own operation for smaller vectors. 64 KiB until the model
// supplies the measured value through set_compression_break_even_bytes. Process-wide; every
// rank must use the same value (it is part of the reductions' argument agreement). Every
// choose_* below sets it from the model (the default when the model has no finite value).
size_t compression_break_even_bytes();
void set_compression_break_even_bytes(size_t bytes);
// Testing: while forced (not SIZE_MAX), compression_break_even_bytes() returns this value
// whatever the model sets (every rank must force the same); SIZE_MAX lifts it.
void force_compression_break_even_bytes_for_testing(size_t bytes);

// With Auto these are collective (the sampled ratio of every rank's input is agreed on):
// call them on every rank. send: this rank's input (count elements; count_per_rank * p for
// reduce_scatter_block).
Choice choose_allreduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                        MPI_Comm comm);
Choice choose_reduce_scatter(const Options& opts, const void* send, size_t count_per_rank,
                             Dtype dtype, Op op, MPI_Comm comm);
Choice choose_reduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                     int root, MPI_Comm comm);

}  // namespace commpress::comm::detail
