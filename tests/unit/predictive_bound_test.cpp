// pred-byte and pred-bit keep every finite element within the absolute bound and carry every
// non-finite element bit for bit: all data shapes, the sizes around the predictor's warm-up,
// six decades of bounds, both float types, plus adversarial mixtures (huge outliers, values
// whose ulp exceeds the bound, signed zeros, NaN payloads).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/datasets.hpp"

namespace cc = commpress::codec;
using commpress::testing::Shape;

namespace {

const char* const kCodecs[] = {"pred-byte", "pred-bit"};

// Compresses, decompresses, and checks the bound the frame promises (which must be the
// requested ABS bound). Returns the frame size.
template <class T>
size_t roundtrip(const cc::Codec& codec, const std::vector<T>& x, double bound) {
  auto frame = codec.compress(std::span<const T>(x), cc::ErrorBound::absolute(bound));
  EXPECT_TRUE(frame.ok()) << frame.status().to_string();
  if (!frame.ok()) return 0;
  EXPECT_LE(frame->size(), codec.compress_bound(x.size(), cc::dtype_of<T>()));
  auto info = cc::inspect(*frame);
  EXPECT_TRUE(info.ok() && info->abs_bound == bound);
  std::vector<T> y(x.size(), T(-7));
  auto st = codec.decompress(*frame, std::span<T>(y));
  EXPECT_TRUE(st.ok()) << st.to_string();
  auto err = commpress::testing::check_bound<T>(x, y, bound);
  EXPECT_TRUE(err.empty()) << err;
  return frame->size();
}

template <class T>
void every_shape_size_and_bound() {
  const std::vector<size_t> sizes = {0, 1, 2, 3, 4, 5, 6, 7, 31, 32, 33, 97, 101, 1021, 4099};
  const double bounds[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  int arrays = 0;
  for (const char* name : kCodecs) {
    const cc::Codec* codec = cc::find_codec(name);
    ASSERT_NE(codec, nullptr) << name;
    for (Shape shape : commpress::testing::all_shapes())
      for (size_t n : sizes)
        for (double bound : bounds)
          for (uint64_t seed = 0; seed < 2; ++seed) {
            SCOPED_TRACE(std::string(name) + " " + commpress::testing::shape_name(shape) +
                         " n=" + std::to_string(n) + " E=" + std::to_string(bound) +
                         " seed=" + std::to_string(seed));
            roundtrip(*codec, commpress::testing::make_data<T>(shape, n, seed), bound);
            ++arrays;
            if (::testing::Test::HasFailure()) return;
          }
  }
  EXPECT_GE(arrays, 3000);
}

TEST(PredictiveBound, EveryShapeSizeAndBoundF32) { every_shape_size_and_bound<float>(); }
TEST(PredictiveBound, EveryShapeSizeAndBoundF64) { every_shape_size_and_bound<double>(); }

TEST(PredictiveBound, LargeArrays) {
  for (const char* name : kCodecs) {
    const cc::Codec* codec = cc::find_codec(name);
    ASSERT_NE(codec, nullptr);
    for (Shape shape : commpress::testing::all_shapes()) {
      SCOPED_TRACE(std::string(name) + " " + commpress::testing::shape_name(shape));
      roundtrip(*codec, commpress::testing::make_data<float>(shape, 100003, 5), 1e-3);
      roundtrip(*codec, commpress::testing::make_data<double>(shape, 100003, 5), 1e-6);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Values built to hit every branch: predictable runs, values far beyond the bound's
// resolution, offsets that swallow small values, overflowing shifts, NaN payloads, signed
// zeros, subnormals and the extremes of the type.
template <class T>
std::vector<T> adversarial(size_t n, std::mt19937_64& rng) {
  using lim = std::numeric_limits<T>;
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 99);
  const double scale = std::pow(10.0, std::uniform_int_distribution<int>(-8, 8)(rng));
  const double base = pick(rng) < 50 ? 0.0 : uni(rng) * std::pow(10.0, pick(rng) % 12);
  std::vector<T> x(n);
  double walk = base;
  for (auto& v : x) {
    int r = pick(rng);
    walk += uni(rng) * scale;
    if (r < 60) v = T(walk);
    else if (r < 70) v = T(base + scale * std::sin(0.01 * double(&v - x.data())));
    else if (r < 74) v = lim::quiet_NaN();
    else if (r < 75) {
      // A NaN with a random sign and payload (exponent all ones, mantissa non-zero).
      std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> bits =
          rng() | (sizeof(T) == 4 ? 0x7f800001u : 0x7ff0000000000001ull);
      std::memcpy(&v, &bits, sizeof(T));
    } else if (r < 77) v = pick(rng) < 50 ? lim::infinity() : -lim::infinity();
    else if (r < 80) v = pick(rng) < 50 ? T(0) : -T(0);
    else if (r < 82) v = lim::denorm_min() * T(pick(rng));
    else if (r < 84) v = pick(rng) < 50 ? lim::max() : lim::lowest();
    else if (r < 86) v = T(uni(rng) * std::pow(10.0, pick(rng) % (sizeof(T) == 4 ? 38 : 300)));
    else v = T(walk);
  }
  return x;
}

template <class T>
void adversarial_mixtures() {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> log_bound(-12.0, 3.0);
  for (int trial = 0; trial < 1500; ++trial) {
    const size_t n = rng() % 300;
    const double bound = std::pow(10.0, log_bound(rng));
    const auto x = adversarial<T>(n, rng);
    for (const char* name : kCodecs) {
      SCOPED_TRACE(std::string(name) + " trial " + std::to_string(trial) + " n=" +
                   std::to_string(n) + " E=" + std::to_string(bound));
      roundtrip(*cc::find_codec(name), x, bound);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(PredictiveBound, AdversarialMixturesF32) { adversarial_mixtures<float>(); }
TEST(PredictiveBound, AdversarialMixturesF64) { adversarial_mixtures<double>(); }

// A few huge values among ordinary ones: the bound still holds for all of them, and the
// huge ones come back to within the bound too (not merely "finite").
TEST(PredictiveBound, HugeValuesMixedIn) {
  for (const char* name : kCodecs) {
    const cc::Codec* codec = cc::find_codec(name);
    auto x = commpress::testing::make_data<float>(Shape::random_walk, 5000, 3);
    x[10] = 3e38f;
    x[2000] = -1e30f;
    x[2001] = 1e25f;
    x[4999] = std::numeric_limits<float>::lowest();
    SCOPED_TRACE(name);
    roundtrip(*codec, x, 1e-3);
    auto xd = commpress::testing::make_data<double>(Shape::smooth3d, 5000, 3);
    xd[0] = 1e300;
    xd[17] = -std::numeric_limits<double>::max();
    xd[4000] = 1e-300;
    roundtrip(*codec, xd, 1e-9);
  }
}

// Whatever the bound, NaN payloads and infinities come back bit for bit.
TEST(PredictiveBound, NonFiniteValuesAreExact) {
  using lim = std::numeric_limits<double>;
  std::vector<double> x = {lim::quiet_NaN(), 1.0, lim::infinity(), 1.5, -lim::infinity(),
                           2.0, -lim::quiet_NaN(), 2.5, lim::signaling_NaN(), 3.0};
  uint64_t payload = 0x7ff800000000abcdull;
  std::memcpy(&x[6], &payload, 8);
  for (const char* name : kCodecs) {
    const cc::Codec* codec = cc::find_codec(name);
    for (double bound : {1e-12, 1e-3, 10.0, 1e300}) {
      auto frame = codec->compress(std::span<const double>(x), cc::ErrorBound::absolute(bound));
      ASSERT_TRUE(frame.ok());
      std::vector<double> y(x.size());
      ASSERT_TRUE(codec->decompress(*frame, std::span<double>(y)).ok());
      for (size_t i = 0; i < x.size(); ++i) {
        if (std::isfinite(x[i])) EXPECT_LE(std::fabs(x[i] - y[i]), bound) << name << " " << i;
        else EXPECT_EQ(std::memcmp(&x[i], &y[i], 8), 0) << name << " element " << i;
      }
    }
  }
}

}  // namespace
