#include "support/datasets.hpp"

#include <cmath>
#include <limits>
#include <random>

namespace commpress::testing {

const std::vector<Shape>& all_shapes() {
  static const std::vector<Shape> s = {Shape::random_walk, Shape::gaussian,   Shape::smooth3d,
                                       Shape::sparse,      Shape::constant,   Shape::zeros,
                                       Shape::huge_range,  Shape::denormals,  Shape::nonfinite};
  return s;
}

std::string shape_name(Shape s) {
  switch (s) {
    case Shape::random_walk: return "random_walk";
    case Shape::gaussian: return "gaussian";
    case Shape::smooth3d: return "smooth3d";
    case Shape::sparse: return "sparse";
    case Shape::constant: return "constant";
    case Shape::zeros: return "zeros";
    case Shape::huge_range: return "huge_range";
    case Shape::denormals: return "denormals";
    case Shape::nonfinite: return "nonfinite";
  }
  return "?";
}

const std::vector<size_t>& awkward_sizes() {
  static const std::vector<size_t> s = {0, 1, 2, 31, 32, 33, 63, 64, 65, 97, 1021, 4099, 65537};
  return s;
}

template <class T>
std::vector<T> make_data(Shape s, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(s));
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<T> x(n);
  switch (s) {
    case Shape::random_walk: {
      double acc = 0;
      for (auto& v : x) v = T(acc += normal(rng));
      break;
    }
    case Shape::gaussian:
      for (auto& v : x) v = T(normal(rng));
      break;
    case Shape::smooth3d: {
      size_t side = std::max<size_t>(1, size_t(std::cbrt(double(n))) + 1);
      for (size_t i = 0; i < n; ++i) {
        double a = double(i % side) / side, b = double((i / side) % side) / side,
               c = double(i / (side * side)) / side;
        x[i] = T(std::sin(6.28 * a) + std::cos(9.42 * b) * std::sin(3.14 * c) + 1e-3 * normal(rng));
      }
      break;
    }
    case Shape::sparse:
      for (auto& v : x) {
        double u = uni(rng);
        v = (std::fabs(u) < 0.3) ? T(0) : T(uni(rng));
      }
      break;
    case Shape::constant: {
      T c = T(3.25 + (seed % 7));
      for (auto& v : x) v = c;
      break;
    }
    case Shape::zeros:
      break;
    case Shape::huge_range: {
      int max_exp = std::is_same_v<T, float> ? 30 : 200;
      std::uniform_int_distribution<int> e(-max_exp, max_exp);
      for (auto& v : x) v = T(uni(rng) * std::pow(10.0, e(rng) / 10.0 * 1.0) * std::pow(2.0, e(rng)));
      break;
    }
    case Shape::denormals: {
      T tiny = std::numeric_limits<T>::denorm_min();
      std::uniform_int_distribution<int> k(0, 1000);
      for (auto& v : x) {
        int r = k(rng);
        v = r < 300 ? T(0) : (r < 900 ? T(tiny * T(r)) : std::numeric_limits<T>::min() * T(uni(rng)));
      }
      break;
    }
    case Shape::nonfinite: {
      double acc = 0;
      std::uniform_int_distribution<int> k(0, 99);
      for (auto& v : x) {
        acc += normal(rng);
        int r = k(rng);
        v = r == 0   ? std::numeric_limits<T>::quiet_NaN()
            : r == 1 ? std::numeric_limits<T>::infinity()
            : r == 2 ? -std::numeric_limits<T>::infinity()
                     : T(acc);
      }
      break;
    }
  }
  return x;
}

template std::vector<float> make_data<float>(Shape, size_t, uint64_t);
template std::vector<double> make_data<double>(Shape, size_t, uint64_t);

}  // namespace commpress::testing
