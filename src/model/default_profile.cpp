// The profile used when none was measured (COMMPRESS_PROFILE unset): what `commpress
// profile` measured on the development machine (2 cores, 2 ranks on shared memory, Open MPI
// over vader, one OpenMP thread per rank, other jobs running), committed in full as
// bench/results/profile-shm.json. Any machine should measure its own: the decision it
// drives (compress or not) is only as good as these numbers.
#include "commpress/model.hpp"

namespace commpress::model {

MachineProfile default_profile() {
  MachineProfile m;
  m.origin = "built-in default: commpress profile on the development machine, 2 ranks on "
             "shared memory (bench/results/profile-shm.json)";
  m.network.eager = {0.622e-6, 0.561e-9};
  m.network.rendezvous = {1.265e-3, 0.790e-9};
  m.network.switch_bytes = 262145;
  m.intra_node = m.network;
  m.gamma = 0.0972e-9;
  m.ranks_per_node = 0;  // the node structure of the run decides, not the profiling run's
  m.threads_per_rank = 1;
  m.codecs = {
      {"szp", Dtype::f32, 7.157e8, 2.799e9, 7.174e8, 8.327e8, 0, 6.817},
      {"szp", Dtype::f64, 7.637e8, 1.427e9, 1.049e9, 7.279e8, 0, 13.67},
      {"szp-lossless", Dtype::f32, 6.518e8, 6.112e8, 0, 0, 0, 1.652},
      {"szp-lossless", Dtype::f64, 3.141e8, 2.847e8, 0, 0, 0, 1.296},
      {"zstd-1", Dtype::f32, 1.391e8, 2.434e8, 0, 0, 0, 1.173},
      {"zstd-1", Dtype::f64, 1.221e8, 2.245e8, 0, 0, 0, 1.081},
      {"lz4", Dtype::f32, 8.933e8, 7.466e8, 0, 0, 0, 0.9961},
      {"lz4", Dtype::f64, 9.771e8, 1.137e9, 0, 0, 0, 0.9961},
  };
  return m;
}

}  // namespace commpress::model
