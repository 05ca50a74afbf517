// How an algorithm runs each reduction it serves: the runner column of the algorithm table
// (commpress/algorithm.hpp). allreduce.cpp, reduce_scatter.cpp and reduce.cpp run whatever
// the agreement settled through runner_of; each algorithm's file defines its Runner. MPI's
// own call and the movement operations' algorithms are run by their verbs (run_by_verb).
#pragma once

#include <cstddef>

#include "comm/session/reduce_collective.hpp"

namespace commpress::comm::detail {

// What a runner's planning reads, all of it agreed: the plan is made before anything runs.
struct ReduceShape {
  model::Operation operation;
  Algorithm algorithm;  // what runs (a ring's kind)
  Op op;
  const Wire& wire;     // codec and chunking (its bound not yet planned)
  int ranks;
  size_t count;         // the verb's count (per rank for reduce_scatter_block)
  size_t break_even;    // bytes below which a transfer goes raw
  int nodes;            // Hierarchical: nodes of the even layout it runs on
};

// Each runs on >= 2 ranks (unless one_rank) the session's plan (ReduceSession::plan), which
// holds its error budget, planned from its structure by `quantizations` before the run.
// in may be out except for reduce_scatter (the verb copies an in-place input first).
struct Runner {
  // in, out: the whole vector of n elements.
  Status (*allreduce)(ReduceSession& s, const std::byte* in, std::byte* out, size_t n) = nullptr;
  // in: p blocks of m elements; out: this rank's block.
  Status (*reduce_scatter)(ReduceSession& s, const std::byte* in, std::byte* out,
                           size_t m) = nullptr;
  // in: the whole vector; out: the result at root.
  Status (*reduce)(ReduceSession& s, const std::byte* in, std::byte* out, size_t n,
                   int root) = nullptr;
  // How codec errors reach the result (null: nothing quantizes, MPI's rounding only).
  QuantizationCount (*quantizations)(const ReduceShape& shape) = nullptr;
  bool one_rank = false;  // runs on one rank too (else the verb copies the input out)
};

#define COMMPRESS_DECLARE_RUNNER(id, value, name, c_name, literature, ops, compressed, \
                                 homomorphic, cost, runner)                            \
  extern const Runner runner;
COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_DECLARE_RUNNER)
#undef COMMPRESS_DECLARE_RUNNER

// The runner of a's row; run_by_verb for Auto.
const Runner& runner_of(Algorithm a);

}  // namespace commpress::comm::detail
