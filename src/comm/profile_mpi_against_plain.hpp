// MachineProfile::reduce_scatter_mpi and bcast_mpi: MPI's own operation and the plain one
// commpress can run in its stead (PlainRing, PlainBinomial), both called as Auto would call
// them (through commpress::comm, so each pays the argument agreement alike), in alternation
// on every rank at once; the slowdown is the median of the rounds' paired ratios.
#pragma once

#include <mpi.h>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm {

// Collective. f32 blocks (reduce_scatter) or messages (bcast) of 64 KiB, 1 MiB and 8 MiB,
// those up to max_bytes.
Result<model::MpiAgainstPlain> measure_reduce_scatter_mpi(MPI_Comm comm, double max_bytes);
Result<model::MpiAgainstPlain> measure_bcast_mpi(MPI_Comm comm, double max_bytes);

}  // namespace commpress::comm
