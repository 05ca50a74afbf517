// What Algorithm::Auto runs for the reductions, one function per operation: the place where
// the cost model hooks in. A forced algorithm passes through unchanged. Every rank must reach
// the same answer (the choice is agreed on afterwards; a disagreement fails every rank).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Below this many bytes a transfer is not worth compressing: Rabenseifner sends smaller
// ranges raw and Auto picks MPI's own operation for smaller vectors. 64 KiB until the model
// supplies the measured value through set_compression_break_even_bytes. Process-wide; every
// rank must use the same value (it is part of the reductions' argument agreement).
size_t compression_break_even_bytes();
void set_compression_break_even_bytes(size_t bytes);
// Testing: while forced (not SIZE_MAX), compression_break_even_bytes() returns this value
// whatever the model sets (every rank must force the same); SIZE_MAX lifts it.
void force_compression_break_even_bytes_for_testing(size_t bytes);

Algorithm choose_allreduce(const Options& opts, size_t count, Dtype dtype, Op op, MPI_Comm comm);
Algorithm choose_reduce_scatter(const Options& opts, size_t count_per_rank, Dtype dtype, Op op,
                                MPI_Comm comm);
Algorithm choose_reduce(const Options& opts, size_t count, Dtype dtype, Op op, int root,
                        MPI_Comm comm);

}  // namespace commpress::comm::detail
