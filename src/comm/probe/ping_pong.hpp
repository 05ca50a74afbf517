// One-way message time between the two ranks of a pair: what `commpress profile` sweeps over
// sizes and the first collective's probe (probe/link_probe.*) times at a few.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Half the fastest of repeated round trips of an m-byte message between ranks 0 and 1 of
// `pair` (what the link can do: a shared machine's preemptions only ever add time). The
// round trips repeat for about `target_seconds` (at least min_reps, at most max_reps); rank 0
// tells rank 1 how many follow. buf holds at least m bytes on both ranks.
Result<double> ping_pong(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                         double target_seconds, int min_reps, int max_reps);

}  // namespace commpress::comm::probe
