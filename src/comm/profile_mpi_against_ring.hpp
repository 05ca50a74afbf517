// MachineProfile::reduce_scatter_mpi: MPI's own reduce_scatter_block and commpress's plain
// ring, both called as Auto would call them (through commpress::comm, so each pays the
// argument agreement and the value range alike), in alternation on every rank at once.
#pragma once

#include <mpi.h>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm {

// Collective. Blocks of 64 KiB, 1 MiB and 8 MiB of f32 per rank, those up to max_block_bytes.
Result<model::MpiAgainstRing> measure_reduce_scatter_mpi(MPI_Comm comm, double max_block_bytes);

}  // namespace commpress::comm
