// The first collective's measurement of the machine, for Auto where no profile is given
// (docs/models.md, "Zero configuration"): what `commpress profile` measures, cut to what Auto
// needs and to a bounded time: each link class's line (the same node, other nodes) and the
// message size up to which it overlaps computation, from a short ping-pong; gamma; the
// codecs' rates on the call's own data at its bound over p (a sum's step bound), under the
// sharing of cores that every rank coding at once meets (codec_share.hpp); the wait of an
// oversubscribed step; and where every rank shares one node, MPI's allreduce, allgather and
// bcast against SharedWindow and its reduce_scatter against PlainRing.
// Every rank returns the same numbers. Not measured: MPI's bcast against the plain tree, and
// across nodes its reduce_scatter against the plain ring (those stay MPI's); `commpress
// profile` measures them.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <string>

#include "comm/probe/mpi_against_plain.hpp"
#include "commpress/codec.hpp"
#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// The call that triggered the probe: its data (this rank's contribution; may be null, as on
// a bcast's non-roots) and codec. Rates are measured on that data where it is at hand.
struct ProbeCall {
  const void* data = nullptr;
  size_t count = 0;
  codec::Dtype dtype = codec::Dtype::f32;
  std::string codec;       // the call's codec besides szp (empty or "none": szp only; Auto
                           // weighing the codec modes: the entropy mode, szp-eh)
  double rel_bound = 1e-4; // the call's bound (the lossy rates are measured at it over p)
};

struct Probed {
  model::MachineProfile profile;
  std::string phases;  // the seconds each part took on this rank (for COMMPRESS_DEBUG)
  // What the probe repeated, on rank 0 (rank 0 is an end of every link's ping-pong): the
  // timed round trips of the links' ping-pongs and the calls of the comparisons on one node
  // (timed and warm-up). Their budgets are the constants beside them (link_probe.cpp,
  // quick_probe.cpp); a test holds the probe to them without timing it.
  int round_trips = 0;
  int window_calls = 0;
};

// The comparisons' rounds on one node (mpi_against_plain.hpp): 4, 3 and 2 paired ratios at
// most after a warm-up round, the smallest kept (MPI's loss is trusted only as far as every
// round showed it), stopping once the two lowest agree within 10% or one is at most 1; 64 KiB
// and 8 MiB (the allgather's and the reduce-scatter's blocks 64 KiB and 1 MiB). Not 1 MiB in
// 8 MiB's stead, though it costs an eighth: MPI's loss shrinks with the size, and at 2 ranks
// `commpress profile` had SharedWindow ahead at 1 MiB and behind at 8 MiB
// (bench/results/profile-shm.json).
constexpr AgainstPlainRounds kQuickWindowRounds{5, 4, 3, /*lowest=*/true, /*agree=*/0.1,
                                                /*middle=*/false};
// The most calls the four comparisons on one node make (Probed::window_calls): two sizes
// each, the allgather's and the reduce-scatter's smaller.
constexpr int kMaxWindowCalls =
    2 * (2 * (kQuickWindowRounds.small + kQuickWindowRounds.large) +
         2 * (kQuickWindowRounds.small + kQuickWindowRounds.medium));

// Collective over comm. node_of_rank[r]: the node index of rank r (the same on every rank).
Result<Probed> quick_probe(MPI_Comm comm, std::span<const int> node_of_rank,
                                          const ProbeCall& call);

// What a layer above comm adds to the probe (the multiply: its local BLAS rates): called
// collectively on every rank, in registration order, after the rest is measured; what it
// writes must be the same on every rank.
using ProbeExtension = Status (*)(MPI_Comm comm, model::MachineProfile& profile);
void add_probe_extension(ProbeExtension extension);

}  // namespace commpress::comm::probe
