// One link class's line (alpha, beta) from a short ping-pong between two ranks: the first
// collective's probe of the links (probe/quick_probe.*), with the size up to which the link
// overlaps computation (overlap_limit.hpp). `commpress profile` sweeps 8 B .. 64 MiB instead
// and finds the eager/rendezvous knee.
#pragma once

#include <mpi.h>

#include <span>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Collective over comm: ranks a and b (a != b) ping-pong messages of 8 B .. 1 MiB in six
// sizes, each until its fastest round trips agree, within a count and a time budget per size
// (link_probe.cpp), then judge the overlap up to 256 KiB while the others compute. Every rank
// returns the same Link (a's measurements: fit_probed_link's line, and the overlap). Where
// round_trips is given, rank a adds the timed round trips to it.
Result<model::Link> probe_link(MPI_Comm comm, int a, int b, int* round_trips = nullptr);

// The most timed round trips probe_link makes (its budgets: link_probe.cpp).
extern const int kMaxRoundTripsPerLink;

// The lines probe_link fits to its measured (bytes, seconds) points: the sizes below 64 KiB
// and those above on lines of their own, so latency-bound small messages cannot set the cost
// per byte of large ones; each side the line under its points (floor_line.hpp).
model::Link fit_probed_link(std::span<const model::Sample> points);

}  // namespace commpress::comm::probe
