// Generators for the benchmark data sets. Values are computed in double and rounded once to
// the stored type, so the float32 and float64 random walks differ only by that rounding.
#include "codecs/datasets.hpp"

#include <cmath>
#include <numbers>

#include "codecs/rng.hpp"

namespace commpress::bench {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// A grid as close to a cube as powers of two allow: 2^24 -> 256^3, 2^22 -> 256x128x128.
std::vector<size_t> grid_shape(size_t n) {
  size_t side = 1;
  while ((side * 2) * (side * 2) * (side * 2) <= n) side *= 2;
  if (n % (side * side) != 0) return {n};
  return {n / (side * side), side, side};
}

template <class T, class F>
std::vector<T> fill(size_t n, F&& value_at) {
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = T(value_at(i));
  return x;
}

template <class T>
std::vector<T> random_walk(size_t n, uint64_t seed) {
  Rng rng(seed);
  double acc = 0;
  return fill<T>(n, [&](size_t) { return acc += rng.normal(); });
}

std::vector<float> gaussian(size_t n, uint64_t seed) {
  Rng rng(seed);
  return fill<float>(n, [&](size_t) { return rng.normal(); });
}

// Plane waves of a few wavelengths across the box, plus noise at 1e-3 of the amplitude: the
// smooth fields of simulations, where prediction pays.
std::vector<float> smooth_field(size_t n, const std::vector<size_t>& shape, uint64_t seed) {
  Rng rng(seed);
  size_t nx = shape.size() == 3 ? shape[2] : n, ny = shape.size() == 3 ? shape[1] : 1;
  size_t nz = shape.size() == 3 ? shape[0] : 1;
  return fill<float>(n, [&](size_t i) {
    double u = double(i % nx) / double(nx), v = double((i / nx) % ny) / double(ny);
    double w = double(i / (nx * ny)) / double(nz);
    return std::sin(kTwoPi * (u + 0.5 * v)) + 0.5 * std::sin(kTwoPi * (3 * v - w) + 1.0) +
           0.25 * std::sin(kTwoPi * (5 * w + 2 * u) + 2.0) +
           0.1 * std::sin(kTwoPi * (7 * u + 11 * v + 13 * w)) + 1e-3 * rng.normal();
  });
}

// Uniform[-1, 1] with 30% exact zeros: sparse activations and masked fields.
std::vector<float> sparse_uniform(size_t n, uint64_t seed) {
  Rng rng(seed);
  return fill<float>(n, [&](size_t) {
    bool zero = rng.uniform() < 0.3;
    double u = 2.0 * rng.uniform() - 1.0;
    return zero ? 0.0 : u;
  });
}

}  // namespace

std::string Dataset::shape_string() const {
  std::string s;
  for (size_t d : shape) {
    if (!s.empty()) s += 'x';
    s += std::to_string(d);
  }
  return s;
}

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = {"random_walk", "gaussian", "smooth_field",
                                                 "sparse_uniform", "random_walk_f64"};
  return names;
}

Result<Dataset> generate_dataset(const std::string& name, size_t n) {
  Dataset d;
  d.name = name;
  d.shape = {n};
  if (name == "random_walk") {
    d.f32 = random_walk<float>(n, 101);
    d.description = "cumulative sum of N(0,1), float32";
  } else if (name == "gaussian") {
    d.f32 = gaussian(n, 202);
    d.description = "N(0,1) noise, float32";
  } else if (name == "smooth_field") {
    d.shape = grid_shape(n);
    d.f32 = smooth_field(n, d.shape, 303);
    d.description = "sum of sines on a 3-D grid plus 1e-3*N(0,1) noise, float32";
  } else if (name == "sparse_uniform") {
    d.f32 = sparse_uniform(n, 404);
    d.description = "uniform[-1,1] with 30% zeros, float32";
  } else if (name == "random_walk_f64") {
    d.dtype = codec::Dtype::f64;
    d.f64 = random_walk<double>(n, 505);
    d.description = "cumulative sum of N(0,1), float64";
  } else {
    return Status{ErrorCode::invalid_argument, "unknown data set '" + name + "'"};
  }
  return d;
}

}  // namespace commpress::bench
