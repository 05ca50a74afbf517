// Zero-configuration Auto: the profile in force where none is given. The first collective on
// a communicator (and the first multiply) calls use_probed_profile before Auto decides:
//   1. the ranks agree whether any of them lacks a profile (set_machine_profile, a readable
//      COMMPRESS_PROFILE); none does: nothing more, ever, on this communicator;
//   2. they learn the layout (host names, ranks per node) and its cache key (with the
//      library version and the threads per rank);
//   3. rank 0 reads the cached profile of that key (probe/profile_cache.*), unless
//      COMMPRESS_PROBE_CACHE=off or refresh, and broadcasts it; where it has none, every
//      rank takes part in quick_probe and rank 0 caches the result (not where =off);
//   4. every rank parses rank 0's text of the profile, so all hold identical numbers, and
//      keeps it for the communicator (an attribute): later calls on it only switch to it.
// COMMPRESS_DEBUG set (not 0) prints rank 0's steps on stderr.
#pragma once

#include <mpi.h>

#include "comm/probe/quick_probe.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::probe {

// Collective on the first call per communicator (every rank of comm must enter it with its
// first collective there); later calls make the communicator's profile the one in force, a
// few nanoseconds. A failure (MPI's) is reported once on stderr and leaves the profile in
// force as it was; the ranks' profile fingerprints then disagree and the call fails on all.
void use_probed_profile(MPI_Comm user_comm, const ProbeCall& call);

// Marks comm as one the probe measures on (the private communicator it probes, the one it
// times commpress's own collectives on): collectives there never start a probe of their own.
// A per-communicator mark, not a per-thread one: under SimGrid SMPI the ranks may run on one
// thread of one process, and a thread's flag would then be every rank's.
void exempt_from_probe(MPI_Comm comm);

// The probe's view of a collective call: its codec, bound and this rank's data.
ProbeCall probe_call(const Options& opts, const void* data, size_t count, Dtype dtype);

// How many probes and cache reuses this process has run (tests, debug output).
struct ProbeCounts {
  int probed = 0;
  int reused = 0;
};
ProbeCounts probe_counts();

}  // namespace commpress::comm::probe
