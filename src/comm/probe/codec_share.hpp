// The share of a core a rank's codec work gets while every rank codes at once. The probe
// times each codec operation by the time it ran on its core (the fastest of a few runs, the
// waits for a core left out: timing.hpp, timed_on_core), which holds neither the sharing of
// cores among ranks nor other jobs' load. A collective's codec work runs on every rank at
// once, and its rate is that rate times the share measured here: the model's rates are those
// under such sharing (MachineProfile::codec_oversubscription), as `commpress profile`'s
// longer runs measure them.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Collective over comm: every rank compresses its n values `a` with c (at REL `rel` of their
// range) back to back for `window` seconds (longer where it waits for its core, so that one
// missed time slice does not set the share; the bounds are codec_share.cpp's constants), all
// starting together. Returns the
// slowest rank's rate over its window as a fraction of `fastest` (bytes/s; the same on every
// rank), in (0, 1].
template <class T>
Result<double> codec_share(MPI_Comm comm, const codec::Codec& c, double rel, const T* a, size_t n,
                           double fastest, double window);

}  // namespace commpress::comm::probe
