// Lossy codecs at the edges of the floating-point range, each result checked against the
// bound the request promises as computed by the test in long double (rel x (max - min) of the
// finite values, or the ABS value), never against the frame's own field: a REL bound that
// underflows must not turn into an absolute one.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "support/bound_check.hpp"
#include "support/reframe.hpp"
#include "support/registry_params.hpp"

namespace {

namespace cc = commpress::codec;

template <class T>
struct EdgeSet {
  std::string name;
  std::vector<T> x;
};

// A random walk of `n` steps scaled to `scale`, shifted by `offset`.
template <class T>
std::vector<T> walk(size_t n, long double scale, long double offset, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> step(0, 1);
  std::vector<T> x(n);
  long double v = 0;
  for (auto& e : x) {
    v += step(rng);
    e = T(offset + scale * v);
  }
  return x;
}

template <class T>
std::vector<EdgeSet<T>> edge_sets() {
  using L = std::numeric_limits<T>;
  std::vector<EdgeSet<T>> s;
  const long double tiny = L::min();  // 1e-38 for f32, 2e-308 for f64
  s.push_back({"near the smallest normal", walk<T>(1000, tiny, 100 * tiny, 1)});
  s.push_back({"subnormal", walk<T>(1000, L::denorm_min() * 4, 0, 2)});
  s.push_back({"near the largest", walk<T>(1000, L::max() / 1e6L, 0, 3)});
  s.push_back({"spanning the whole range", {L::max(), -L::max(), T(1), T(0), L::lowest() / 3}});
  s.push_back({"constant", std::vector<T>(333, T(-7.25))});
  s.push_back({"zeros and minus zeros", {T(0), T(-0.0), T(0), T(-0.0)}});
  auto mixed = walk<T>(700, 1, 0, 4);
  mixed[3] = L::quiet_NaN();
  mixed[100] = L::infinity();
  mixed[101] = -L::infinity();
  s.push_back({"with NaN and Inf", mixed});
  if constexpr (std::is_same_v<T, double>) {
    s.push_back({"near 1e-300", walk<T>(1000, 1e-301L, 1e-300L, 5)});
    s.push_back({"near 1e+300", walk<T>(1000, 1e298L, 1e300L, 6)});
  } else {
    s.push_back({"near 1e-38", walk<T>(1000, 1e-39L, 1e-38L, 7)});
  }
  return s;
}

template <class T>
void every_edge(const cc::Codec& codec) {
  const std::vector<cc::ErrorBound> bounds = {
      cc::ErrorBound::relative(1e-30), cc::ErrorBound::relative(1e-12),
      cc::ErrorBound::relative(1e-4),  cc::ErrorBound::relative(0.5),
      cc::ErrorBound::absolute(1e-300), cc::ErrorBound::absolute(1e-3),
      cc::ErrorBound::absolute(1e300)};
  for (const auto& set : edge_sets<T>()) {
    for (const auto& b : bounds) {
      SCOPED_TRACE(std::string(codec.name()) + " " + cc::dtype_name(cc::dtype_of<T>()) + " " +
                   set.name + " " + cc::bound_mode_name(b.mode) + " " + std::to_string(b.value));
      const long double promised = commpress::testing::promised_bound<T>(set.x, b);
      auto frame = codec.compress(std::span<const T>(set.x), b);
      ASSERT_TRUE(frame.ok()) << frame.status().to_string();
      auto info = cc::inspect(*frame);
      ASSERT_TRUE(info.ok()) << info.status().to_string();
      EXPECT_LE((long double)info->abs_bound, promised);
      std::vector<T> y(set.x.size());
      ASSERT_TRUE(cc::decompress(*frame, std::span<T>(y)).ok());
      auto err = commpress::testing::check_bound<T>(set.x, y, promised);
      EXPECT_TRUE(err.empty()) << err;
    }
  }
}

class LossyAtTheEdges : public ::testing::TestWithParam<std::string> {};

TEST_P(LossyAtTheEdges, KeepTheBoundComputedIndependently) {
  const cc::Codec* codec = cc::find_codec(GetParam());
  ASSERT_NE(codec, nullptr);
  ASSERT_TRUE(codec->lossy());
  every_edge<float>(*codec);
  every_edge<double>(*codec);
}

// Every lossy codec the registry holds (the lossless ones are checked bit for bit elsewhere).
std::vector<std::string> lossy_codec_names() {
  std::vector<std::string> names;
  for (const cc::Codec* c : cc::list_codecs())
    if (c->lossy()) names.emplace_back(c->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, LossyAtTheEdges, ::testing::ValuesIn(lossy_codec_names()),
                         commpress::testing::codec_param_name);

// The case that once decoded to zeros with within_bound "yes": REL 1e-30 of a range near
// 1e-300 is 1e-330, below every double, so the values must come back exactly.
TEST(RelBound, UnderflowingBoundCarriesTheValuesExactly) {
  auto x = walk<double>(1000, 1e-301L, 1e-300L, 9);
  for (const char* name : {"szp", "zfp", "pred-byte", "pred-bit"}) {
    auto frame = cc::find_codec(name)->compress(std::span<const double>(x),
                                                cc::ErrorBound::relative(1e-30));
    ASSERT_TRUE(frame.ok()) << name;
    EXPECT_EQ(cc::inspect(*frame)->abs_bound, 0.0) << name;
    std::vector<double> y(x.size());
    ASSERT_TRUE(cc::decompress(*frame, std::span<double>(y)).ok()) << name;
    EXPECT_TRUE(commpress::testing::bit_equal<double>(x, y)) << name;
  }
}

// A bound resealed from positive to 0 or back (checksum recomputed, as anyone can) must not
// decode "ok" to other values: the exact forms of szp and zfp are recognisable in the payload.
TEST(RelBound, BoundForgedToOrFromZeroIsRefused) {
  auto x = walk<double>(2000, 1, 0, 12);
  for (const char* name : {"szp", "zfp"}) {
    const cc::Codec* c = cc::find_codec(name);
    for (bool exact : {false, true}) {
      auto frame = c->compress(std::span<const double>(x), exact ? cc::ErrorBound::lossless()
                                                                 : cc::ErrorBound::absolute(1e-3));
      ASSERT_TRUE(frame.ok());
      auto f = commpress::testing::open_frame(*frame);
      f.info.abs_bound = exact ? 1e-3 : 0.0;
      f.info.mode = exact ? cc::BoundMode::abs : cc::BoundMode::rel;
      f.info.requested_bound = exact ? 1e-3 : 1e-6;
      auto forged = commpress::testing::reframe(f);
      ASSERT_TRUE(cc::inspect(forged).ok());
      std::vector<double> y(x.size()), want(x.size());
      ASSERT_TRUE(cc::decompress(*frame, std::span<double>(want)).ok());
      auto st = cc::decompress(forged, std::span<double>(y));
      // Refused, or (szp's zero and raw blocks read alike under any bound) the same values.
      if (st.ok()) {
        EXPECT_TRUE(commpress::testing::bit_equal<double>(y, want)) << name << " exact: " << exact;
      } else {
        EXPECT_EQ(st.code(), commpress::ErrorCode::corrupt_frame) << name << ": " << st.to_string();
      }
    }
  }
}

// rel_to_abs never exceeds the true product, at any magnitude, and gives 0 below what the
// dtype can quantize.
TEST(RelBound, ResolvesToNoMoreThanTheTrueProduct) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> ex(-1074, 1023);
  for (int k = 0; k < 20000; ++k) {
    double a = std::ldexp(mant(rng), ex(rng)), b = std::ldexp(mant(rng), ex(rng));
    double rel = std::ldexp(std::fabs(mant(rng)), ex(rng) / 4);
    if (!(rel > 0)) continue;
    cc::ValueRange r{std::min(a, b), std::max(a, b), true};
    for (cc::Dtype d : {cc::Dtype::f32, cc::Dtype::f64}) {
      const double eb = cc::rel_to_abs(rel, r, d);
      const long double truth = (long double)rel * ((long double)r.max - (long double)r.min);
      ASSERT_LE((long double)eb, truth) << a << " " << b << " " << rel;
      const double smallest = d == cc::Dtype::f32 ? double(std::numeric_limits<float>::min())
                                                  : std::numeric_limits<double>::min();
      if (truth < smallest) {
        ASSERT_EQ(eb, 0.0);
      } else if (truth < (long double)std::numeric_limits<double>::max()) {
        ASSERT_GE((long double)eb, truth * (1 - 1e-15L)) << a << " " << b << " " << rel;
      }
    }
  }
  // A range wider than the largest double still gives its true (finite) bound.
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(cc::rel_to_abs(0.25, {-big, big, true}, cc::Dtype::f64), big / 2);
  EXPECT_EQ(cc::rel_to_abs(0.5, {1.0, 1.0, true}, cc::Dtype::f64), 0.0);
  EXPECT_EQ(cc::rel_to_abs(0.5, {}, cc::Dtype::f64), 0.0);
}

}  // namespace
