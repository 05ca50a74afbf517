// What Algorithm::Auto runs for the reductions, one function per operation: the place where
// the cost model hooks in. A forced algorithm passes through unchanged. Every rank must reach
// the same answer (the choice is agreed on afterwards; a disagreement fails every rank).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "comm/selection/choose.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Below this many bytes a transfer is not worth compressing: Rabenseifner sends smaller
// ranges raw and Auto picks MPI's own operation for smaller vectors. 64 KiB until the model
// supplies the measured value through set_compression_break_even_bytes. Process-wide; every
// rank must use the same value (it is part of the reductions' argument agreement). Every
// choose_* below sets it from the model for a forced algorithm, ReduceSession::begin once
// Auto's choice is settled (the default when the model has no finite value).
size_t compression_break_even_bytes();
inline constexpr size_t kDefaultBreakEvenBytes = size_t{64} << 10;
void set_compression_break_even_bytes(size_t bytes);
// Sets it from a settled choice's model value (the default when it has none).
void settle_break_even(const Choice& c);
// What settle_break_even sets, without the process-wide value: a call's own (a forced size
// still wins), unaffected by calls that run at the same time on other threads (nonblocking
// collectives' progress threads).
size_t break_even_of(const Choice& c);
// SIZE_MAX unless forced for testing (below).
size_t forced_compression_break_even_bytes();
// Testing: while forced (not SIZE_MAX), compression_break_even_bytes() returns this value
// whatever the model sets (every rank must force the same); SIZE_MAX lifts it.
void force_compression_break_even_bytes_for_testing(size_t bytes);

// Whether some compressed reduction could honour the request (SelectCall::compressible).
bool reduction_compressible(const Options& opts, Dtype dtype, Op op);

// Local, like choose.hpp's (Auto stays pending until the agreement). send: this rank's input (count
// elements; count_per_rank * p for reduce_scatter_block).
Choice choose_allreduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                        MPI_Comm comm);
Choice choose_reduce_scatter(const Options& opts, const void* send, size_t count_per_rank,
                             Dtype dtype, Op op, MPI_Comm comm);
Choice choose_reduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                     int root, MPI_Comm comm);

}  // namespace commpress::comm::detail
