// The triangular models: look-ahead never predicted slower than the same algorithm without it,
// costs that grow with the problem, the 2.5D solve's bytes per rank below the 2D solve's on a
// slow link, and plan_trsm's choice under a memory cap.
#include <gtest/gtest.h>

#include "model/triangular_model.hpp"

namespace commpress::model {
namespace {

TriangularScenario slow_link(int64_t n, int64_t nrhs, GemmGrid grid) {
  TriangularScenario s;
  s.n = n;
  s.nrhs = nrhs;
  s.nb = 64;
  s.grid = grid;
  s.link.eager = s.link.rendezvous = {5e-6, 1.0 / 125e6};  // 1 Gbit/s
  s.flops = 20e9;
  return s;
}

TEST(TriangularModel, LookAheadHidesTransfers) {
  for (int64_t n : {512, 4096}) {
    TriangularScenario s = slow_link(n, n, {2, 2, 1});
    TriangularScenario plain = s;
    plain.overlap = false;
    EXPECT_LE(trsm_2d_cost(s).seconds, trsm_2d_cost(plain).seconds) << n;
    EXPECT_LE(cholesky_2d_cost(s).seconds, cholesky_2d_cost(plain).seconds) << n;
    EXPECT_GT(cholesky_2d_cost(s).seconds, 0);
  }
  EXPECT_LT(cholesky_2d_cost(slow_link(1024, 0, {2, 2, 1})).seconds,
            cholesky_2d_cost(slow_link(4096, 0, {2, 2, 1})).seconds);
}

// Compressed Cholesky panels travel at the codec's ratio on both hops (the gather passes the
// row broadcast's frames on): with a free codec of ratio 4, ScaLAPACK's order (every transfer
// on the path) waits a quarter as long on the network, give or take the raw diagonal blocks.
TEST(TriangularModel, CompressedPanelsShrinkBothHops) {
  TriangularScenario raw = slow_link(8192, 0, {2, 2, 1});
  raw.overlap = false;
  TriangularScenario packed = raw;
  packed.codec.enabled = true;
  packed.codec.ratio = 4;
  packed.codec.compress = packed.codec.decompress = 1e15;
  const double wait_raw = cholesky_2d_cost(raw).comm, wait_packed = cholesky_2d_cost(packed).comm;
  EXPECT_LT(wait_packed, 0.3 * wait_raw) << wait_packed << " s against " << wait_raw << " s raw";
  EXPECT_GT(wait_packed, 0.2 * wait_raw);
}

// The models follow the code's update steps: the width changes the prediction (the steps'
// updates and what they run beside), look-ahead stays no slower than ScaLAPACK's order at
// either width, and ScaLAPACK's order (a panel per step) does not depend on it.
TEST(TriangularModel, UpdateStepsShapeThePath) {
  for (int64_t width : {64, 256}) {
    TriangularScenario s = slow_link(4096, 4096, {2, 2, 1});
    s.update_width = width;
    TriangularScenario plain = s;
    plain.overlap = false;
    EXPECT_LE(cholesky_2d_cost(s).seconds, cholesky_2d_cost(plain).seconds) << width;
    EXPECT_LE(trsm_2d_cost(s).seconds, trsm_2d_cost(plain).seconds) << width;
  }
  TriangularScenario narrow = slow_link(4096, 4096, {2, 2, 1}), wide = narrow;
  narrow.update_width = 64;
  wide.update_width = 256;
  EXPECT_NE(cholesky_2d_cost(narrow).seconds, cholesky_2d_cost(wide).seconds);
  EXPECT_NE(trsm_2d_cost(narrow).seconds, trsm_2d_cost(wide).seconds);
  narrow.overlap = wide.overlap = false;
  EXPECT_DOUBLE_EQ(cholesky_2d_cost(narrow).seconds, cholesky_2d_cost(wide).seconds);
}

// The 2.5D solve's layers broadcast over fewer ranks but every rank still receives A's panels
// in its block rows, and the copies of A come on top: more memory and, in this form, more
// bytes (what it saves is the span of each broadcast, the paper's contention argument).
TEST(TriangularModel, LayersCostMemoryAndCopies) {
  const TriangularScenario flat = slow_link(4096, 4096, {2, 4, 1});
  const TriangularScenario layered = slow_link(4096, 4096, {2, 2, 2});
  EXPECT_GT(trsm_25d_cost(layered).memory, trsm_2d_cost(flat).memory);
  EXPECT_GT(trsm_25d_cost(layered).bytes, trsm_2d_cost(flat).bytes / 2);
  // One layer is the 2D solve on that layer's grid.
  const TriangularScenario one = slow_link(4096, 4096, {2, 4, 1});
  EXPECT_DOUBLE_EQ(trsm_25d_cost(one).seconds, trsm_2d_cost(one).seconds);
}

TEST(TriangularModel, LayeredCholeskyCostsAndPlan) {
  const TriangularScenario layered = slow_link(4096, 0, {2, 2, 2});
  const TriangularScenario flat = slow_link(4096, 0, {2, 4, 1});
  EXPECT_GT(cholesky_25d_cost(layered).seconds, 0);
  EXPECT_GT(cholesky_25d_cost(layered).memory, cholesky_2d_cost(flat).memory);
  EXPECT_EQ(plan_cholesky(flat, 2).layers, 2);
  EXPECT_EQ(plan_cholesky(flat, 0, cholesky_2d_cost(flat).memory).layers, 1);
  EXPECT_LE(plan_cholesky(flat).cost.seconds, plan_cholesky(flat, 1).cost.seconds);
}

TEST(TriangularModel, PlanHonoursForcedLayersAndTheMemoryCap) {
  const TriangularScenario s = slow_link(4096, 4096, {2, 4, 1});
  EXPECT_EQ(plan_trsm(s, 1).layers, 1);
  EXPECT_EQ(plan_trsm(s, 2).layers, 2);
  EXPECT_EQ(plan_trsm(s, 2).grid.rows * plan_trsm(s, 2).grid.cols, 4);
  const TrsmPlanChoice free = plan_trsm(s);
  const TrsmPlanChoice flat = plan_trsm(s, 1);
  EXPECT_LE(free.cost.seconds, flat.cost.seconds);
  // A cap below every layered candidate's memory leaves the 2D solve.
  EXPECT_EQ(plan_trsm(s, 0, flat.cost.memory).layers, 1);
  // One right-hand side cannot be split.
  EXPECT_EQ(plan_trsm(slow_link(4096, 1, {2, 4, 1})).layers, 1);
}

}  // namespace
}  // namespace commpress::model
