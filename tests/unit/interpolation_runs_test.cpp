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

std::vector<szp::InterpRun> runs_of(const szp::Box& b, bool by_plane, bool rows = false) {
  std::vector<szp::InterpRun> runs;
  szp::interpolation_runs(b, [&](const szp::InterpRun& r) { runs.push_back(r); }, by_plane,
                          rows);
  return runs;
}

// Boxes with rows of every length class: one value, a few, and many of each formula.
const std::vector<szp::Box> kBoxes = {{1, 1, 1, 1},   {1, 1, 7, 1},    {5, 1, 9, 5},
                                      {3, 4, 5, 3},   {8, 8, 8, 8},    {17, 6, 33, 17},
                                      {2, 2, 2, 2},   {9, 1, 1, 9},    {1, 9, 1, 1},
                                      {33, 33, 33, 33}, {64, 3, 2, 64}};

TEST(InterpolationRuns, ByPlaneIsTheVisitOrdersRunsWithTheirNeighboursFirst) {
  for (const szp::Box& b : kBoxes) {
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

// A row run stands for the runs of one formula of its row: split by for_each_kind (the row's
// first index, step and code kept, so each part is addressed as [i, i + k) of the row), its
// values come with the codes, positions and formulas they have without rows, in that order.
TEST(InterpolationRuns, RowRunsSplitIntoTheRunsOfOneFormula) {
  using Value = std::tuple<size_t, size_t, size_t, size_t, int>;  // code, index, sd, s, kind
  auto values = [](const szp::InterpRun& r, size_t i0, size_t m, std::vector<Value>& out) {
    for (size_t i = i0; i < i0 + m; ++i)
      out.emplace_back(r.code + i, r.j0 + i * r.step, r.sd, r.stride, int(r.kind));
  };
  for (const szp::Box& b : kBoxes)
    for (bool by_plane : {false, true}) {
      SCOPED_TRACE(testing::Message() << b.nz << "x" << b.ny << "x" << b.nx << " " << by_plane);
      std::vector<Value> want, got;
      for (const auto& r : runs_of(b, by_plane)) values(r, 0, r.n, want);
      size_t row_runs = 0;
      for (const auto& r : runs_of(b, by_plane, true)) {
        if (r.kind == szp::RunKind::row) {
          ++row_runs;
          EXPECT_EQ(r.nd, b.nx);
        }
        szp::for_each_kind(r, 0, r.n, [&](const szp::InterpRun& part, size_t i, size_t k) {
          EXPECT_NE(part.kind, szp::RunKind::row);
          values(part, i, k, got);
        });
      }
      EXPECT_EQ(got, want);
      EXPECT_EQ(row_runs > 0, b.nx > 1);
    }
}

// The predictions of a row run are its parts' predictions, over any window of the row.
TEST(InterpolationRuns, RowRunPredictsEachValueByItsOwnFormula) {
  const szp::Box b{6, 5, 23, 6};
  std::vector<double> v(b.count());
  for (size_t j = 0; j < v.size(); ++j) v[j] = double((j * 7919) % 101) - 50.0;
  for (const auto& r : runs_of(b, true, true)) {
    if (r.kind != szp::RunKind::row) continue;
    for (size_t i0 = 0; i0 < r.n; ++i0)
      for (size_t m = 1; i0 + m <= r.n; ++m) {
        std::vector<double> whole(m), parts(m);
        szp::predict_run<double, true>(v.data(), r, i0, m, whole.data());
        for (size_t i = 0; i < m; ++i) {
          szp::InterpRun one = r;
          const size_t x = r.stride + (i0 + i) * r.step;
          if (x + r.stride >= r.nd)
            one.kind = szp::RunKind::left;
          else if (x >= 3 * r.stride && x + 3 * r.stride < r.nd)
            one.kind = szp::RunKind::cubic;
          else
            one.kind = szp::RunKind::linear;
          szp::predict_run<double, true>(v.data(), one, i0 + i, 1, &parts[i]);
        }
        ASSERT_EQ(whole, parts) << "row at " << r.j0 << ", values " << i0 << " + " << m;
      }
  }
}

}  // namespace
