// The collective algorithms, in one table. Everything that lists them is generated from
// COMMPRESS_COLLECTIVE_ALGORITHMS (commpress/collective_algorithms.h, also read by the C header
// commpress.h for its commpress_algorithm values): the Algorithm enum (comm::Algorithm and model::Algorithm
// are this type), the names, the C API's enum checks (src/capi), the operations each serves
// (Auto's candidates and the "offered" lists of the argument check), the cost model that
// predicts it (src/model) and the runner that executes it (src/comm/algorithms).
// Without MPI: the cost models include it too. docs/architecture.md says how to add a row.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "commpress/collective_algorithms.h"

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
