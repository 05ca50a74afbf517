// Link::overlap_bytes: up to which message size a link moves data while both ends compute
// (no MPI calls), so a pipelined ring's transfers hide behind its codec work. `commpress
// profile` judges every power of two its ping-pong swept; the first collective's probe
// (probe/link_probe.*) judges its few sizes, up to a cap, with fewer repeats.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Between ranks 0 and 1 of `pair` (both call it), with one_way their ping-pong times (the
// same on both, ascending sizes) and buf at least the largest judged size: the largest size
// whose time inside MPI, beyond that of a 1 KiB message (the calls themselves), stays under
// half its extra ping-pong time while both ends compute for twice that (the fastest of `reps`
// tries: a preemption only ever adds). Sizes whose ping-pong time is under 4x the 1 KiB one
// are not judged (latency, not transfer, dominates them, and microsecond noise would): they
// count as overlapping if the first judged size does. Sizes stop at the first that fails and
// at max_bytes. 0 where none overlaps.
Result<double> overlap_limit(MPI_Comm pair, int rank, std::vector<std::byte>& buf,
                             const std::vector<model::Sample>& one_way, int reps,
                             double max_bytes);

// How a rank waits in wait_for_all between its tests: it only tests (MPI's own wait), or
// keeps its core busy as it would in a collective (the ranks not judging the overlap while a
// pair judges it).
enum class Pace { test, compute };

// Collective over comm: returns when every rank has called it.
Status wait_for_all(MPI_Comm comm, Pace pace);

}  // namespace commpress::comm::probe
