// MachineProfile's MpiAgainstPlain members: MPI's own operation and the plain one commpress
// can run in its stead (PlainRing, PlainBinomial, SharedWindow), both called as Auto would
// call them (through commpress::comm, so each pays the argument agreement alike), in
// alternation on every rank at once; the slowdown is the median of the rounds' paired ratios.
#pragma once

#include <mpi.h>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::profile {

// Collective. f32 blocks (reduce_scatter) or messages (bcast) of 64 KiB, 1 MiB and 8 MiB,
// those up to max_bytes.
Result<model::MpiAgainstPlain> measure_reduce_scatter_mpi(MPI_Comm comm, double max_bytes);
Result<model::MpiAgainstPlain> measure_bcast_mpi(MPI_Comm comm, double max_bytes);
// allreduce (the vector's bytes), allgather (a block's) and bcast against SharedWindow; not
// measured (ranks 0) unless every rank of comm runs on one node.
Result<model::MpiAgainstPlain> measure_allreduce_mpi(MPI_Comm comm, double max_bytes);
Result<model::MpiAgainstPlain> measure_allgather_mpi(MPI_Comm comm, double max_bytes);
Result<model::MpiAgainstPlain> measure_bcast_window_mpi(MPI_Comm comm, double max_bytes);

}  // namespace commpress::profile
