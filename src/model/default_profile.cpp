// The profile used when none was measured (COMMPRESS_PROFILE unset): the numbers
// `commpress profile` measured on the development machine, 2 ranks on shared memory
// (bench/results/profile-shm.json). Placeholder values until measured.
#include "commpress/model.hpp"

namespace commpress::model {

MachineProfile default_profile() {
  MachineProfile m;
  m.origin = "built-in default (placeholder)";
  m.network.eager = {0.5e-6, 0.2e-9};
  m.network.rendezvous = {3e-6, 0.15e-9};
  m.network.switch_bytes = 4097;
  m.gamma = 0.15e-9;
  m.threads_per_rank = 1;
  m.codecs = {
      {"szp", Dtype::f32, 3e9, 4e9, 5e9, 4e9, 5e-6, 6},
      {"szp", Dtype::f64, 3e9, 4e9, 5e9, 4e9, 5e-6, 10},
  };
  return m;
}

}  // namespace commpress::model
