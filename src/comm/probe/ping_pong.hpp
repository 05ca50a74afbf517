// One-way message time between the two ranks of a pair: what `commpress profile` sweeps over
// sizes and the first collective's probe (probe/link_probe.*) times at a few.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "comm/probe/stable_floor.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Half the fastest of repeated round trips of an m-byte message between ranks 0 and 1 of
// `pair` (what the link can do: a shared machine's preemptions only ever add time), after
// a warm-up round trip where warm_up says (the first size of a sweep: connection set-up; a
// later size's first round trip, if slower, is no floor either). Rank 0 repeats them as
// `budget` says (stable_floor.hpp: until the fastest two agree, within its count and its
// seconds of round trips) and then tells rank 1 to stop.
// buf holds at least m bytes on both ranks. Rank 1 returns 0. Where round_trips is given,
// rank 0 adds the round trips it timed to it.
Result<double> ping_pong(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                         const FloorBudget& budget, bool warm_up = true,
                         int* round_trips = nullptr);

}  // namespace commpress::comm::probe
