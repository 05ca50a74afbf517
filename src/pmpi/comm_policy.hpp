// Which policy governs a communicator: the environment's (agreed at MPI_Init), or the one
// MPI_Comm_set_info gave it (keys "commpress_bound", "commpress_codec", "commpress_min_bytes",
// "commpress_ops" over the environment's values), kept as an attribute so that MPI_Comm_dup
// copies it and MPI_Comm_free drops it.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>

#include "commpress/status.hpp"
#include "pmpi/policy.hpp"

namespace commpress::pmpi {

// After PMPI_Init: reads and agrees on the environment's policy over MPI_COMM_WORLD.
Status start_policies();
bool policies_started();
const Policy& environment_policy_in_force();

// The policy of comm (the environment's unless set_info gave it one); nullptr before MPI_Init
// went through this library (nothing is intercepted then).
const Policy* policy_for(MPI_Comm comm);

// What an active policy's line says about the progress threads after MPI_Init: " (progress
// threads)", or why there are none.
std::string progress_note();

namespace detail {
extern std::atomic<bool> may_intercept_flag;
}
// Whether any communicator can have an active policy: false before MPI_Init, and in a job
// whose environment sets none until MPI_Comm_set_info gives one. One load, inline: every
// wrapper asks it first, so a pass-through job's calls reach PMPI_* with nothing more.
inline bool may_intercept() { return detail::may_intercept_flag.load(std::memory_order_relaxed); }

}  // namespace commpress::pmpi
