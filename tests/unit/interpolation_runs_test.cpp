// The runs of szp-e's multilevel interpolation (src/codec/lossy/szp/interpolation_runs.hpp):
// in visit order each run's code index is the count of values before it, and with each level
// taken plane by plane the same runs come (same codes, positions, formulas), every
// value once, each after every neighbour its formula reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "codec/lossy/szp/interpolation_runs.hpp"

namespace szp = commpress::codec::szp;

namespace {

using Key = std::tuple<size_t, size_t, size_t, size_t, size_t, size_t, int>;

Key key(const szp::InterpRun& r) {
  return {r.code, r.j0, r.step, r.n, r.sd, r.stride, int(r.kind)};
}

std::vector<szp::InterpRun> runs_of(const szp::Box& b, bool by_plane) {
  std::vector<szp::InterpRun> runs;
  szp::interpolation_runs(b, [&](const szp::InterpRun& r) { runs.push_back(r); }, by_plane);
  return runs;
}

TEST(InterpolationRuns, ByPlaneIsTheVisitOrdersRunsWithTheirNeighboursFirst) {
  const std::vector<szp::Box> boxes = {{1, 1, 1, 1},   {1, 1, 7, 1},    {5, 1, 9, 5},
                                       {3, 4, 5, 3},   {8, 8, 8, 8},    {17, 6, 33, 17},
                                       {2, 2, 2, 2},   {9, 1, 1, 9},    {1, 9, 1, 1},
                                       {33, 33, 33, 33}, {64, 3, 2, 64}};
  for (const szp::Box& b : boxes) {
    SCOPED_TRACE(testing::Message() << b.nz << "x" << b.ny << "x" << b.nx);
    const auto visit = runs_of(b, false), plane = runs_of(b, true);
    size_t code = 0;
    for (const auto& r : visit) {
      EXPECT_EQ(r.code, code);
      code += r.n;
    }
    EXPECT_EQ(code, b.count());
    std::vector<Key> a, c;
    for (const auto& r : visit) a.push_back(key(r));
    for (const auto& r : plane) c.push_back(key(r));
    std::sort(c.begin(), c.end());
    EXPECT_EQ(a, c);
    std::vector<int> done(b.count(), 0);
    auto ready = [&](size_t j, ptrdiff_t off) {
      const ptrdiff_t at = ptrdiff_t(j) + off;
      return at >= 0 && at < ptrdiff_t(done.size()) && done[size_t(at)] != 0;
    };
    for (const auto& r : plane)
      for (size_t i = 0; i < r.n; ++i) {
        const size_t j = r.j0 + i * r.step;
        const ptrdiff_t o1 = ptrdiff_t(r.sd), o3 = 3 * o1;
        bool ok = true;
        if (r.kind != szp::RunKind::zero) ok &= ready(j, -o1);
        if (r.kind == szp::RunKind::linear || r.kind == szp::RunKind::cubic) ok &= ready(j, o1);
        if (r.kind == szp::RunKind::cubic) ok &= ready(j, -o3) && ready(j, o3);
        ASSERT_TRUE(ok) << "value " << j << " before a neighbour";
        ASSERT_EQ(done[j]++, 0) << "value " << j << " twice";
      }
    EXPECT_EQ(size_t(std::count(done.begin(), done.end(), 1)), b.count());
  }
}

}  // namespace
