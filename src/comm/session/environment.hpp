// The environment variables the collectives consult on every call, read once per process.
// Walking the environment costs a cache miss per variable when it is cold, as it is between
// an application's collectives, and mpirun sets dozens of variables: a noticeable share of a
// small bcast (docs/measured-choices.md).
#pragma once

#include <string>

namespace commpress::comm::detail {

// How nonblocking collectives progress (COMMPRESS_PROGRESS, docs/environment.md).
enum class ProgressMode {
  thread,  // a progress thread per communicator whose waits sleep between tests (default)
  spin,    // a progress thread that waits in MPI's own polling waits
  inline_  // no thread: the operation runs when it is started
};

struct Environment {
  // COMMPRESS_PRETEND_RANKS_PER_NODE (0 = unset or not a positive count up to 2^20).
  int pretend_ranks_per_node = 0;
  // Ranks of this job on this node, as the launcher says (OMPI_COMM_WORLD_LOCAL_SIZE,
  // MPI_LOCALNRANKS or PMI_LOCAL_SIZE; 0 = none says).
  int local_ranks = 0;
  ProgressMode progress = ProgressMode::thread;
  std::string progress_error;  // COMMPRESS_PROGRESS set to none of its values: why
};

const Environment& environment();

// Tests that change those variables make the change seen (not thread-safe against calls
// in flight).
void reread_environment_for_testing();

}  // namespace commpress::comm::detail
