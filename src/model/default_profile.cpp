// The profile used when none was measured (COMMPRESS_PROFILE unset): what `commpress
// profile` measured on the development machine (2 cores, 2 ranks on shared memory, Open MPI
// over vader, one OpenMP thread per rank, fastest of repeated runs while other jobs ran),
// committed in full as
// bench/results/profile-shm.json. Any machine should measure its own: the decision it
// drives (compress or not) is only as good as these numbers.
#include "commpress/model.hpp"

namespace commpress::model {

MachineProfile default_profile() {
  MachineProfile m;
  m.origin = "built-in default: commpress profile on the development machine, 2 ranks on "
             "shared memory (bench/results/profile-shm.json)";
  m.network.eager = {0.490e-6, 0.519e-9};  // no eager/rendezvous knee stood out
  m.network.rendezvous = m.network.eager;
  m.network.switch_bytes = 134217728;
  m.intra_node = m.network;
  m.gamma = 0.226e-9;
  m.ranks_per_node = 0;  // the node structure of the run decides, not the profiling run's
  m.threads_per_rank = 1;
  // Local dgemm with one BLAS thread per rank (2 ranks on the 2 cores); sgemm about twice.
  m.gemm_flops_f64 = 52e9;
  m.gemm_flops_f32 = 104e9;
  m.codecs = {
      {"szp", Dtype::f32, 4.116e9, 11.38e9, 2.549e9, 1.023e9, 1.54e-6, 6.817},
      {"szp", Dtype::f64, 2.048e9, 8.539e9, 2.029e9, 1.865e9, 0.22e-6, 13.67},
      {"szp-lossless", Dtype::f32, 1.010e9, 1.342e9, 0, 0, 0, 1.652},
      {"szp-lossless", Dtype::f64, 0.589e9, 0.474e9, 0, 0, 0, 1.296},
      {"zstd-1", Dtype::f32, 0.200e9, 0.327e9, 0, 0, 0, 1.173},
      {"zstd-1", Dtype::f64, 0.181e9, 0.324e9, 0, 0, 0, 1.081},
      {"lz4", Dtype::f32, 1.193e9, 6.913e9, 0, 0, 0, 0.9961},
      {"lz4", Dtype::f64, 1.322e9, 1.628e9, 0, 0, 0, 0.9961},
  };
  return m;
}

}  // namespace commpress::model
