/* The collective algorithms' table, one row each: pure preprocessor text, read by the C++
 * header commpress/algorithm.hpp (the Algorithm enum, names, operations, cost models, runners)
 * and by the C header commpress.h (the commpress_algorithm values), so that a row is the only
 * place an algorithm is listed. A C compiler only reads the id, value and C name of a row; the
 * other arguments (C++ expressions) are dropped unexpanded. docs/architecture.md says how to
 * add a row. */
#ifndef COMMPRESS_COLLECTIVE_ALGORITHMS_H
#define COMMPRESS_COLLECTIVE_ALGORITHMS_H

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

#endif /* COMMPRESS_COLLECTIVE_ALGORITHMS_H */
