// Machine profiles for the model's tests: an α-β network of the given latency and seconds per
// byte, and szp-like codec rates (bytes/s of raw data) with a fixed cost per call.
#pragma once

#include "commpress/model.hpp"

namespace commpress::testing {

inline model::MachineProfile machine(double alpha, double beta) {
  model::MachineProfile m;
  m.network.eager = {alpha, beta * 1.5};
  m.network.rendezvous = {4 * alpha, beta};
  m.network.switch_bytes = 65537;
  m.gamma = 1.5e-10;
  m.codecs = {{"szp", codec::Dtype::f32, 4e9, 5e9, 6e9, 4.5e9, 4e-6, 8}};
  return m;
}
inline model::MachineProfile shared_memory() {
  return machine(0.5e-6, 0.1e-9);
}  // ~10 GB/s
inline model::MachineProfile gigabit() {
  return machine(40e-6, 8e-9);
}  // 125 MB/s

}  // namespace commpress::testing
