// Whether MPI's one-sided windows over a communicator can be created at all. An MPI library
// may have no one-sided component for the transports a job runs on: Open MPI 4.1 under
// `--mca btl tcp,self` across nodes picks its rdma component, which needs an RDMA-capable
// transport, and MPI_Win_create fails with MPI_ERR_WIN (naming `--mca osc sm,pt2pt` makes it
// work). Auto must not plan an algorithm that needs windows there (SRUMMA's gets across
// shared-memory domains), so it asks this first.
#pragma once

#include <mpi.h>

#include "commpress/status.hpp"

namespace commpress::comm::detail {

// Collective over comm: every rank creates (and frees) a window of a few bytes with MPI's
// errors returned, and the ranks agree: true only where it worked on every rank. The answer
// is kept with comm (an attribute), so later calls are a local lookup. An error of the
// agreement itself (not of the window) comes back as a Status.
Result<bool> one_sided_windows_work(MPI_Comm comm);

}  // namespace commpress::comm::detail
