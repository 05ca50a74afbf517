// The finite range of an array (what REL bounds resolve against): NaN and Inf ignored, none
// finite reported as such, large arrays split over threads alike; the copying form returns the
// same range and an exact copy, for any dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "commpress/codec.hpp"

namespace cc = commpress::codec;

namespace {

template <class T>
std::vector<T> walk(size_t n) {
  std::vector<T> x(n);
  double s = 0;
  for (size_t i = 0; i < n; ++i) x[i] = T(s += std::sin(double(i) * 0.37) * 3);
  return x;
}

template <class T>
void expect_range(const std::vector<T>& x, double lo, double hi, bool any) {
  const cc::Dtype d = cc::dtype_of<T>();
  const cc::ValueRange r = cc::finite_range(x.data(), x.size(), d);
  EXPECT_EQ(r.any_finite, any);
  EXPECT_EQ(r.min, lo);
  EXPECT_EQ(r.max, hi);
  std::vector<T> copy(x.size(), T(7));
  const cc::ValueRange c = cc::finite_range_copy(x.data(), x.size(), d, copy.data());
  EXPECT_EQ(c.any_finite, r.any_finite);
  EXPECT_EQ(c.min, r.min);
  EXPECT_EQ(c.max, r.max);
  EXPECT_EQ(std::memcmp(copy.data(), x.data(), x.size() * sizeof(T)), 0);  // NaN bits too
}

template <class T>
void every_case() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  for (size_t n : {size_t{1}, size_t{17}, size_t{1000}, (size_t{1} << 18) + 3, size_t{1} << 20}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<T> x = walk<T>(n);
    x[n / 2] = nan;
    if (n > 2) x[n / 3] = -inf;
    if (n > 3) x[n - 1] = inf;
    double lo = INFINITY, hi = -INFINITY;
    for (T v : x)
      if (std::isfinite(v)) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
    if (lo <= hi) expect_range(x, lo, hi, true);
    else expect_range(x, 0, 0, false);  // none finite: reported as such, range 0
  }
  expect_range(std::vector<T>{nan, inf, -inf}, 0, 0, false);
}

TEST(ValueRange, FloatsIgnoreNanAndInf) { every_case<float>(); }
TEST(ValueRange, DoublesIgnoreNanAndInf) { every_case<double>(); }

TEST(ValueRange, CopyOfIntegersHasNoRange) {
  std::vector<int32_t> x(1001);
  for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t(i * 7919 % 1000) - 500;
  std::vector<int32_t> copy(x.size(), 0);
  const cc::ValueRange r = cc::finite_range_copy(x.data(), x.size(), cc::Dtype::i32, copy.data());
  EXPECT_FALSE(r.any_finite);
  EXPECT_EQ(copy, x);
}

}  // namespace

// Copies this large go around the caches in 64-byte lines (a sixteenth of the last-level
// cache and up; 30 MiB on the development machine): the lines start where the output is
// aligned, so a misaligned output and a length off the lines exercise both edges.
template <class T>
void large_copy_case() {
  const size_t n = ((size_t{64} << 20) / sizeof(T)) + 13;
  std::vector<T> x = walk<T>(n);
  x[5] = std::numeric_limits<T>::quiet_NaN();
  x[n - 2] = -std::numeric_limits<T>::infinity();
  std::vector<T> out(n + 2, T(7));
  const cc::ValueRange r = cc::finite_range(x.data(), n, cc::dtype_of<T>());
  const cc::ValueRange c = cc::finite_range_copy(x.data(), n, cc::dtype_of<T>(), out.data() + 1);
  EXPECT_EQ(c.min, r.min);
  EXPECT_EQ(c.max, r.max);
  EXPECT_EQ(std::memcmp(out.data() + 1, x.data(), n * sizeof(T)), 0);
  EXPECT_EQ(out[0], T(7));
  EXPECT_EQ(out[n + 1], T(7));
}

TEST(ValueRange, LargeFloatCopiesAreExact) {
  large_copy_case<float>();
}
TEST(ValueRange, LargeDoubleCopiesAreExact) {
  large_copy_case<double>();
}
