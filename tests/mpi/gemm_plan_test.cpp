// plan_gemm: the same plan on every rank, the models' numbers for forced algorithms, the grid
// rules over a communicator (Cannon only on square grids, the memory cap against replication,
// never ScaLAPACK in Auto), codec resolution, and bad or disagreeing arguments failing on every
// rank alike.
#include "support/dev_box_profile.hpp"
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "comm/select.hpp"
#include "comm/session/hierarchy.hpp"
#include "commpress/gemm_model.hpp"
#include "commpress/linalg.hpp"
#include "mpi_harness.hpp"

namespace commpress::testing {
namespace {

using codec::Dtype;
using linalg::GemmAlgorithm;
using linalg::GemmOptions;
using linalg::GemmPlan;
using linalg::Grid;
using linalg::Trans;

Grid world_grid() {
  const int p = mpi::size();
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  return *Grid::create(MPI_COMM_WORLD, rows, p / rows);
}

// Every field of the plan equal on every rank (min and max over the ranks agree).
void expect_same_everywhere(const GemmPlan& plan) {
  int64_t v[7] = {int64_t(plan.algorithm),
                  plan.grid_rows,
                  plan.grid_cols,
                  plan.layers,
                  int64_t(std::hash<std::string>{}(plan.codec) >> 1),
                  std::bit_cast<int64_t>(plan.predicted_seconds),
                  int64_t(plan.memory_bytes)};
  int64_t lo[7], hi[7];
  MPI_Allreduce(v, lo, 7, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(v, hi, 7, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(lo[i], hi[i]) << "plan field " << i << " differs";
}

TEST(GemmPlan, AutoOverTheWorldIsOneValidPlan) {
  for (int64_t n : {1, 37, 300}) {
    auto plan = linalg::plan_gemm(Trans::N, Trans::T, n, n + 3, n, Dtype::f64, MPI_COMM_WORLD);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    expect_same_everywhere(*plan);
    EXPECT_EQ(plan->grid_rows * plan->grid_cols * plan->layers, mpi::size());
    EXPECT_NE(plan->algorithm, GemmAlgorithm::Auto);
    EXPECT_NE(plan->algorithm, GemmAlgorithm::ScaLapack);
    EXPECT_EQ(plan->codec, "none");
    EXPECT_GT(plan->predicted_seconds, 0.0);
    if (plan->algorithm == GemmAlgorithm::Cannon) {
      EXPECT_EQ(plan->grid_rows, plan->grid_cols);
    }
  }
}

TEST(GemmPlan, ForcedSummaGetsTheModelsNumbers) {
  Grid g = world_grid();
  GemmOptions o;
  o.algorithm = GemmAlgorithm::Summa;
  o.panel = 16;
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, 200, 150, 120, Dtype::f32, g, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  expect_same_everywhere(*plan);
  EXPECT_EQ(plan->algorithm, GemmAlgorithm::Summa);
  EXPECT_EQ(plan->grid_rows, g.rows());
  EXPECT_EQ(plan->grid_cols, g.cols());
  // The same scenario through the model directly.
  const model::MachineProfile& prof = comm::detail::machine_profile();
  model::GemmScenario s;
  s.m = 200, s.n = 150, s.k = 120, s.elem_size = 4;
  s.grid = {g.rows(), g.cols(), 1};
  s.link = prof.network;
  s.node_size = comm::detail::modelled_ranks_per_node(prof, comm::Options{});
  s.node_link = prof.node_link();
  s.gamma = prof.gamma;
  s.flops = model::gemm_flop_rate(prof, Dtype::f32);
  s.panel = 16;
  // The algorithm's time and the call's agreements (arguments, plan, outcome).
  EXPECT_DOUBLE_EQ(plan->predicted_seconds,
                   model::gemm_time(model::GemmAlgorithm::Summa, s) +
                       model::gemm_agreements_time(model::GemmAlgorithm::Summa, s));
  if (g.rows() * g.cols() > 1) EXPECT_GT(model::gemm_agreements_time(model::GemmAlgorithm::Summa, s), 0);
  // Panel pieces mb x 16 and 16 x nb, double-buffered for the look-ahead.
  const int64_t mb = (200 + g.rows() - 1) / g.rows(), nb = (150 + g.cols() - 1) / g.cols();
  EXPECT_EQ(plan->memory_bytes, uint64_t(2 * (mb + nb) * 16 * 4));
}

TEST(GemmPlan, CannonOnlyOnSquareGrids) {
  GemmOptions o;
  o.algorithm = GemmAlgorithm::Cannon;
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, 64, 64, 64, Dtype::f64, MPI_COMM_WORLD, o);
  const int p = mpi::size();
  const int q = int(std::lround(std::sqrt(double(p))));
  if (q * q == p) {
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    EXPECT_EQ(plan->grid_rows, q);
    EXPECT_EQ(plan->grid_cols, q);
    EXPECT_EQ(plan->layers, 1);
  } else {
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), ErrorCode::invalid_argument);
  }
  Grid g = world_grid();
  auto on_grid = linalg::plan_gemm(Trans::N, Trans::N, 64, 64, 64, Dtype::f64, g, o);
  EXPECT_EQ(on_grid.ok(), g.rows() == g.cols());
}

TEST(GemmPlan, MemoryCapKeepsOneLayer) {
  GemmOptions o;
  o.memory_cap_bytes = 1;  // no replica fits
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, 96, 96, 96, Dtype::f64, MPI_COMM_WORLD, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->layers, 1);
  if (mpi::size() % 2 == 0 && mpi::size() > 1) {
    const int face = mpi::size() / 2;
    const int q = int(std::lround(std::sqrt(double(face))));
    o.layers = 2;  // only 2-layer grids, and none fits the cap
    plan = linalg::plan_gemm(Trans::N, Trans::N, 96, 96, 96, Dtype::f64, MPI_COMM_WORLD, o);
    EXPECT_FALSE(plan.ok());
    if (q * q == face) {
      o.memory_cap_bytes = 0;
      plan = linalg::plan_gemm(Trans::N, Trans::N, 96, 96, 96, Dtype::f64, MPI_COMM_WORLD, o);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      EXPECT_EQ(plan->layers, 2);
      EXPECT_TRUE(plan->algorithm == GemmAlgorithm::Cannon25D ||
                  plan->algorithm == GemmAlgorithm::Summa25D);
      EXPECT_GT(plan->memory_bytes, 0u);
    }
  }
}

TEST(GemmPlan, CodecResolution) {
  Grid g = world_grid();
  GemmOptions o;
  o.codec = "zstd-1";  // forced: kept, and SRUMMA (raw only) is out of Auto's reach
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, 128, 128, 128, Dtype::f64, g, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->codec, "zstd-1");
  EXPECT_NE(plan->algorithm, GemmAlgorithm::Srumma);
  o.codec = "auto";  // lossless: raw or zstd-1, never a lossy codec
  plan = linalg::plan_gemm(Trans::N, Trans::N, 128, 128, 128, Dtype::f64, g, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->codec == "none" || plan->codec == "zstd-1") << plan->codec;
  expect_same_everywhere(*plan);
  o.codec = "szp";  // lossy without a bound
  plan = linalg::plan_gemm(Trans::N, Trans::N, 128, 128, 128, Dtype::f64, g, o);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::invalid_argument);
  o.codec = "no-such-codec";
  plan = linalg::plan_gemm(Trans::N, Trans::N, 128, 128, 128, Dtype::f64, g, o);
  EXPECT_FALSE(plan.ok());
}

TEST(GemmPlan, BadOrDisagreeingArgumentsFailEverywhere) {
  Grid g = world_grid();
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, -1, 4, 4, Dtype::f64, g);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::invalid_argument);
  if (mpi::size() > 1) {
    // One rank asks for another size: every rank fails (none waits alone).
    const int64_t m = mpi::rank() == mpi::size() - 1 ? 65 : 64;
    plan = linalg::plan_gemm(Trans::N, Trans::N, m, 64, 64, Dtype::f64, MPI_COMM_WORLD);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), ErrorCode::mismatch);
  }
}

TEST(GemmPlan, DifferentProfilesFailInsteadOfHanging) {
  if (mpi::size() < 2) GTEST_SKIP() << "needs two ranks";
  model::MachineProfile other = commpress::testing::dev_box_profile();
  other.network.rendezvous.beta *= 100;  // one rank believes in a slow network
  if (mpi::rank() == 0) comm::detail::set_machine_profile(other);
  auto plan = linalg::plan_gemm(Trans::N, Trans::N, 64, 64, 64, Dtype::f64, MPI_COMM_WORLD);
  comm::detail::set_machine_profile(std::nullopt);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::mismatch);
  EXPECT_NE(plan.status().message().find("machine profile"), std::string::npos)
      << plan.status().to_string();
}

}  // namespace
}  // namespace commpress::testing
