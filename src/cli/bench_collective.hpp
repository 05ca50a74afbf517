// `commpress bench collective`: times one operation of include/commpress/comm.hpp (or MPI's
// own) under mpirun and prints one JSON line per measurement on rank 0; the fields are listed
// in bench/collectives/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::cli {

struct BenchCollectiveArgs {
  std::string op;                       // allreduce, reduce_scatter, bcast, ...
  std::vector<std::string> algorithms;  // "auto", "mpi" (MPI's own), or an algorithm name
  size_t count = 0;                     // the operation's count argument, as MPI's
  std::string dtype = "f32";
  std::string data = "randomwalk";  // generated shape, unless input is given
  std::string input;                // raw file; each rank takes its own slice
  uint64_t seed = 1;
  std::vector<double> bound_abs;  // each value is one measurement
  std::vector<double> bound_rel;
  std::string lossless;  // a lossless codec instead of a bound
  std::string codec = "szp";
  int repeat = 3;
  int warmup = 1;
  size_t chunk_bytes = 0;
  int pretend_ranks_per_node = 0;
  int root = 0;
};

// Initializes and finalizes MPI itself. Every rank returns the same status.
Status run_bench_collective(const BenchCollectiveArgs& args);

}  // namespace commpress::cli
