// One link class's line (alpha, beta) from a short ping-pong between two ranks: the first
// collective's probe of the links (probe/quick_probe.*). `commpress profile` sweeps 8 B ..
// 64 MiB instead and finds the eager/rendezvous knee and the overlap.
#pragma once

#include <mpi.h>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Collective over comm: ranks a and b (a != b) ping-pong messages of 8 B .. 1 MiB, a few
// round trips each (within a small time budget per size, at least 2); the others wait. Every rank returns the
// same Link (a's measurements, fitted on both sides of the knee the fit finds).
Result<model::Link> probe_link(MPI_Comm comm, int a, int b);

}  // namespace commpress::comm::probe
