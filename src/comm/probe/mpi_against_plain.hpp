// MachineProfile's MpiAgainstPlain members: MPI's own operation and the plain one commpress
// can run in its stead (PlainRing, PlainBinomial, SharedWindow), both called as Auto would
// call them (through commpress::comm, so each pays the argument agreement alike), in
// alternation on every rank at once; the slowdown is the median of the rounds' paired ratios.
// `commpress profile` measures all five; the zero-configuration probe, where every rank shares
// one node, all but the bcast against PlainBinomial, with fewer rounds (quick_probe.cpp).
#pragma once

#include <mpi.h>

#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::probe {

// Rounds per size (64 KiB, 1 MiB, 8 MiB); each round runs both once, the first warms up.
// The slowdown is the median of the paired ratios, or with `lowest` their smallest: after a
// few rounds only, Auto should trust MPI's loss only as far as every round showed it.
struct AgainstPlainRounds {
  int small = 15, medium = 9, large = 5;
  bool lowest = false;
  // The zero-configuration probe's economies: a size's rounds stop once its two lowest ratios
  // agree within this fraction (stable_floor.hpp; negative: every round runs), or with
  // `lowest` once a ratio is at most 1 (MPI's own no slower: decided), and without
  // `middle` the 1 MiB size is left out (the model interpolates between its neighbours).
  double agree = -1;
  bool middle = true;
  int* calls = nullptr;  // where given, the timed and warm-up calls made are added to it
};

// Collective. f32 blocks (reduce_scatter) or messages (bcast) of 64 KiB, 1 MiB and 8 MiB,
// those up to max_bytes.
Result<model::MpiAgainstPlain> measure_reduce_scatter_mpi(MPI_Comm comm, double max_bytes,
                                                          AgainstPlainRounds rounds = {});
Result<model::MpiAgainstPlain> measure_bcast_mpi(MPI_Comm comm, double max_bytes,
                                                 AgainstPlainRounds rounds = {});
// allreduce (the vector's bytes), allgather (a block's) and bcast against SharedWindow; not
// measured (ranks 0) unless every rank of comm runs on one node.
Result<model::MpiAgainstPlain> measure_allreduce_mpi(MPI_Comm comm, double max_bytes,
                                                     AgainstPlainRounds rounds = {});
Result<model::MpiAgainstPlain> measure_allgather_mpi(MPI_Comm comm, double max_bytes,
                                                     AgainstPlainRounds rounds = {});
Result<model::MpiAgainstPlain> measure_bcast_window_mpi(MPI_Comm comm, double max_bytes,
                                                        AgainstPlainRounds rounds = {});

}  // namespace commpress::comm::probe
