// The collectives under REL bounds at the ends of the double range, checked against the bound
// the test computes itself in long double (rel x the global range of the inputs): a REL bound
// that underflows (1e-30 of a range near 1e-300) must carry the data exactly, not zero it.
// The sums use values k x 2^-1000 with small integers k, so every partial sum is exact in
// double and the exact result is known whatever the algorithm's order of additions.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "comm_test_support.hpp"

namespace {

using namespace commpress::testing::comm;

constexpr size_t kCount = 3001;

std::vector<double> tiny_input(int rank) {
  std::vector<double> x(kCount);
  for (size_t i = 0; i < kCount; ++i)
    x[i] = std::ldexp(double(int((i * 37 + size_t(rank) * 11) % 201) - 100), -1000);
  return x;
}

// The global range of every rank's tiny_input, in long double.
long double global_range() {
  long double lo = INFINITY, hi = -INFINITY;
  for (int r = 0; r < world_size(); ++r)
    for (double v : tiny_input(r)) lo = std::min<long double>(lo, v), hi = std::max<long double>(hi, v);
  return hi - lo;
}

std::string label(cc::Algorithm a, double rel) {
  return std::string(cc::algorithm_name(a)) + " rel " + std::to_string(rel);
}

TEST(TinyMagnitudes, AllreduceKeepsTheRelBoundOfTheGlobalRange) {
  std::vector<double> exact(kCount, 0.0);
  for (int r = 0; r < world_size(); ++r) {
    auto x = tiny_input(r);
    for (size_t i = 0; i < kCount; ++i) exact[i] += x[i];
  }
  const auto mine = tiny_input(world_rank());
  for (cc::Algorithm a : {cc::Algorithm::DocRing, cc::Algorithm::HomomorphicRing,
                          cc::Algorithm::FusedRing, cc::Algorithm::HomomorphicRecursiveDoubling,
                          cc::Algorithm::Rabenseifner, cc::Algorithm::Auto})
    for (double rel : {1e-30, 1e-4}) {
      const std::string what = label(a, rel);
      std::vector<double> out(kCount, -1.0);
      auto r = cc::allreduce(mine.data(), out.data(), kCount, Dtype::f64, cc::Op::sum,
                             MPI_COMM_WORLD, {"szp", ErrorBound::relative(rel), a});
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      const long double promised = rel * global_range();
      for (size_t i = 0; i < kCount; ++i)
        ASSERT_LE(std::fabs((long double)out[i] - exact[i]), promised)
            << what << " element " << i << ": " << out[i] << " against " << exact[i];
      if (promised < std::numeric_limits<double>::min()) {  // underflowed: exactly the sum
        EXPECT_EQ(out, exact) << what;
      } else {  // the report promises no more than was asked
        EXPECT_LE((long double)r->guaranteed_abs_bound, promised) << what;
      }
    }
}

TEST(TinyMagnitudes, BcastAndAllgatherCarryAnUnderflowingBoundExactly) {
  const int p = world_size(), me = world_rank();
  for (cc::Algorithm a : {cc::Algorithm::Binomial, cc::Algorithm::Auto}) {
    auto buf = me == 0 ? tiny_input(0) : std::vector<double>(kCount, 0.0);
    auto r = cc::bcast(buf.data(), kCount, Dtype::f64, 0, MPI_COMM_WORLD,
                       {"szp", ErrorBound::relative(1e-30), a});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(buf, tiny_input(0)) << cc::algorithm_name(a);
    EXPECT_EQ(r->guaranteed_abs_bound, 0.0);
  }
  for (cc::Algorithm a : {cc::Algorithm::Ring, cc::Algorithm::RecursiveDoubling}) {
    std::vector<double> all(kCount * size_t(p)), expect;
    for (int r = 0; r < p; ++r) {
      auto x = tiny_input(r);
      expect.insert(expect.end(), x.begin(), x.end());
    }
    const auto mine = tiny_input(me);
    auto r = cc::allgather(mine.data(), all.data(), kCount, Dtype::f64, MPI_COMM_WORLD,
                           {"zfp", ErrorBound::relative(1e-30), a});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(all, expect) << cc::algorithm_name(a);
  }
}

// Constant inputs have a range of 0: REL then asks for the exact result, which for these
// values (a power of two times small integers) is representable, so it must come back.
TEST(TinyMagnitudes, ConstantInputsReduceExactly) {
  std::vector<float> x(kCount, 1.5f), out(kCount);
  for (cc::Algorithm a : {cc::Algorithm::DocRing, cc::Algorithm::FusedRing, cc::Algorithm::Auto}) {
    auto r = cc::allreduce(x.data(), out.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD,
                           {"szp", ErrorBound::relative(1e-3), a});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (float v : out) ASSERT_EQ(v, 1.5f * float(world_size())) << cc::algorithm_name(a);
  }
}

}  // namespace
