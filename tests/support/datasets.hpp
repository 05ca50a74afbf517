// Deterministic test arrays: the shapes real simulation and training data take, plus the
// edge cases that break codecs (constants, huge ranges, denormals, NaN/Inf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commpress::testing {

enum class Shape {
  random_walk,  // cumulative sum of N(0,1)
  gaussian,     // N(0,1) noise
  smooth3d,     // sum of sines on a 3-D grid plus small noise
  sparse,       // uniform[-1,1] with 30% zeros
  constant,
  zeros,
  huge_range,   // magnitudes spread over many decades, both signs
  denormals,    // subnormal values mixed with zeros and tiny normals
  nonfinite,    // random walk with NaN, +Inf, -Inf sprinkled in
};

const std::vector<Shape>& all_shapes();
std::string shape_name(Shape s);

template <class T>
std::vector<T> make_data(Shape s, size_t n, uint64_t seed);

// Sizes that catch block-boundary bugs: 0, 1, 31, 32, 33, primes, and larger.
const std::vector<size_t>& awkward_sizes();

}  // namespace commpress::testing
