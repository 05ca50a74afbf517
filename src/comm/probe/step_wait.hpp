// MachineProfile::oversubscribed_wait: rounds of real codec work (szp compresses 64 Ki f32)
// and one 8-byte exchange with both ring neighbours on every rank at once, against the same
// rounds without the exchange. Beyond alpha, what a round adds is the wait for peers to get a
// core (ranks that share one wait for each other unless MPI yields it). The fastest of `runs`
// runs of each (a preemption only ever adds); the slowest rank's, the same on every rank.
// -1 where szp is not built (the model then assumes a scheduler slice).
#pragma once

#include <mpi.h>

#include "commpress/status.hpp"

namespace commpress::comm::probe {

Result<double> measure_step_wait(MPI_Comm comm, double alpha, int rounds, int runs);

}  // namespace commpress::comm::probe
