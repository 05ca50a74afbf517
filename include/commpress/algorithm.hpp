// The collective algorithms, in one table. Everything that lists them is generated from
// COMMPRESS_COLLECTIVE_ALGORITHMS: the Algorithm enum (comm::Algorithm and model::Algorithm
// are this type), the names, the C API's enum checks (src/capi), the operations each serves
// (Auto's candidates and the "offered" lists of the argument check), the cost model that
// predicts it (src/model) and the runner that executes it (src/comm/algorithms).
// Without MPI: the cost models include it too. docs/architecture.md says how to add a row.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace commpress {

enum class Operation : uint8_t {
  p2p, bcast, allgather, scatter, gather, reduce_scatter, allreduce, reduce, alltoall
};

// A set of operations, one bit each.
constexpr uint16_t operations(std::initializer_list<Operation> ops) {
  uint16_t bits = 0;
  for (Operation op : ops) bits = uint16_t(bits | (1u << unsigned(op)));
  return bits;
}
inline constexpr uint16_t kReductions =
    operations({Operation::reduce_scatter, Operation::allreduce, Operation::reduce});
inline constexpr uint16_t kAllOperations = 0x1ff;

// One row per algorithm, in the order Auto tries them (a later one must be predicted strictly
// faster to displace an earlier one):
//   X(Id, value, name, C_NAME, literature, operations, compressed, homomorphic, cost, runner)
// value: stable (reports, benchmark output, the C API's commpress_algorithm COMMPRESS_<C_NAME>).
// compressed: moves codec frames (else it runs uncompressed, in place of MPI's own operation
//   where the profile measured MPI slower). homomorphic: combines szp frames without decoding
//   them (needs codec szp and a sum).
// cost: model::detail::<cost>(const Terms&) (src/model), +infinity where it does not apply.
// runner: comm::detail::<runner>, a Runner (src/comm/algorithms/runner.hpp); run_by_verb: the
//   operation's own file runs it (p2p.cpp, bcast.cpp, allgather.cpp, scatter_gather.cpp, and
//   MPI's own call in every verb).
#define COMMPRESS_COLLECTIVE_ALGORITHMS(X)                                                       \
  X(Mpi, 1, "mpi", ALG_MPI, "the MPI library's own operation", kAllOperations, false, false,     \
    mpi_cost, run_by_verb)                                                                       \
  /* one pipelined stream of chunk frames */                                                     \
  X(Direct, 2, "direct", ALG_DIRECT, "pipelined point-to-point", operations({Operation::p2p}),   \
    true, false, direct_cost, run_by_verb)                                                       \
  X(Binomial, 3, "binomial", ALG_BINOMIAL, "C-Coll binomial tree",                               \
    operations({Operation::bcast, Operation::scatter, Operation::gather}), true, false,          \
    binomial_cost, run_by_verb)                                                                  \
  X(Ring, 4, "ring", ALG_RING, "C-Coll ring allgather", operations({Operation::allgather}),      \
    true, false, allgather_ring_cost, run_by_verb)                                               \
  X(RecursiveDoubling, 5, "recursive_doubling", ALG_RECURSIVE_DOUBLING, "Bruck allgather",       \
    operations({Operation::allgather}), true, false, bruck_cost, run_by_verb)                    \
  /* decompress-operate-compress at each hop: any op, any codec */                               \
  X(DocRing, 6, "doc_ring", ALG_DOC_RING, "C-Coll", kReductions, true, false, ccoll_doc_ring_cost, \
    ccoll_doc_ring)                                                                              \
  /* every block compressed once, combine(frame, frame) at each hop */                           \
  X(HomomorphicRing, 7, "homomorphic_ring", ALG_HOMOMORPHIC_RING, "hZCCL", kReductions, true,    \
    true, hzccl_ring_cost, hzccl_ring)                                                           \
  /* combine_raw(local block, received frame) at each hop */                                     \
  X(FusedRing, 8, "fused_ring", ALG_FUSED_RING, "HomComp_F", kReductions, true, true,            \
    homcomp_fused_ring_cost, homcomp_fused_ring)                                                 \
  X(HomomorphicRecursiveDoubling, 9, "homomorphic_recursive_doubling",                           \
    ALG_HOMOMORPHIC_RECURSIVE_DOUBLING, "ghZCCL", kReductions, true, true,                       \
    ghzccl_recursive_doubling_cost, ghzccl_recursive_doubling)                                   \
  /* recursive halving then doubling, raw below the break-even size */                           \
  X(Rabenseifner, 10, "rabenseifner", ALG_RABENSEIFNER, "Rabenseifner", kReductions, true,       \
    false, rabenseifner_cost, rabenseifner_runner)                                               \
  /* raw within a node, compressed across nodes */                                               \
  X(Hierarchical, 11, "hierarchical", ALG_HIERARCHICAL, "ArGM", kReductions, true, false,        \
    argm_hierarchical_cost, argm_hierarchical)                                                   \
  /* MPI's ring, uncompressed, run by commpress */                                               \
  X(PlainRing, 12, "plain_ring", ALG_PLAIN_RING, "ring reduce-scatter",                          \
    operations({Operation::reduce_scatter}), false, false, plain_ring_cost, plain_ring)          \
  /* a binomial tree, uncompressed and unsegmented */                                            \
  X(PlainBinomial, 13, "plain_binomial", ALG_PLAIN_BINOMIAL, "binomial tree",                    \
    operations({Operation::bcast}), false, false, plain_binomial_cost, run_by_verb)              \
  /* uncompressed through shared memory (one node) */                                            \
  X(SharedWindow, 14, "shared_window", ALG_SHARED_WINDOW, "MPI-3 shared-memory window",          \
    operations({Operation::allreduce, Operation::allgather, Operation::bcast}), false, false,    \
    shared_window_cost, shared_window)                                                           \
  /* every destination's block compressed once, p - 1 exchanges with rank +- k */               \
  X(Pairwise, 15, "pairwise", ALG_PAIRWISE, "pairwise exchange", operations({Operation::alltoall}), \
    true, false, pairwise_alltoall_cost, run_by_verb)                                            \
  /* the same frames forwarded unchanged in ceil(log2 p) steps */                                \
  X(Bruck, 16, "bruck", ALG_BRUCK, "Bruck alltoall", operations({Operation::alltoall}), true,    \
    false, bruck_alltoall_cost, run_by_verb)

// Values are stable (they appear in reports and benchmark output).
enum class Algorithm : uint8_t {
  Auto = 0,  // chosen by the cost model (may pick Mpi: no compression); not a row
#define COMMPRESS_ALGORITHM_ENUMERATOR(id, value, ...) id = value,
  COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_ALGORITHM_ENUMERATOR)
#undef COMMPRESS_ALGORITHM_ENUMERATOR
};

struct AlgorithmInfo {
  Algorithm id;
  const char* name;        // as parse_algorithm reads it and reports print it
  const char* literature;  // the name the literature gives it
  uint16_t operations;     // the operations it serves, one bit each
  bool compressed;
  bool homomorphic;

  constexpr bool serves(Operation op) const { return operations & (1u << unsigned(op)); }
};

inline constexpr AlgorithmInfo kAlgorithms[] = {
#define COMMPRESS_ALGORITHM_INFO(id, value, name, c_name, literature, ops, compressed,        \
                                 homomorphic, cost, runner)                                   \
  {Algorithm::id, name, literature, ops, compressed, homomorphic},
    COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_ALGORITHM_INFO)
#undef COMMPRESS_ALGORITHM_INFO
};

// The row of a; null for Auto or a value no row has.
constexpr const AlgorithmInfo* algorithm_info(Algorithm a) {
  for (const AlgorithmInfo& info : kAlgorithms)
    if (info.id == a) return &info;
  return nullptr;
}

// "auto" for Auto, "?" for a value no row has.
constexpr const char* algorithm_name(Algorithm a) {
  if (a == Algorithm::Auto) return "auto";
  const AlgorithmInfo* info = algorithm_info(a);
  return info ? info->name : "?";
}

// Moves codec frames: not Mpi, PlainRing, PlainBinomial or SharedWindow.
constexpr bool is_compressed(Algorithm a) {
  const AlgorithmInfo* info = algorithm_info(a);
  return info && info->compressed;
}
constexpr bool is_homomorphic(Algorithm a) {
  const AlgorithmInfo* info = algorithm_info(a);
  return info && info->homomorphic;
}

}  // namespace commpress
