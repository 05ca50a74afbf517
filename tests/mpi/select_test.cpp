// Algorithm::Auto driven by the cost model: every rank reaches the same decision although
// each samples different data, a slow network makes it compress and a fast one makes it
// decline, the Report carries the prediction, and disagreeing ranks still fail together.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "comm/select.hpp"
#include "commpress/collective_plan.hpp"
#include "comm/session/environment.hpp"
#include "comm_test_support.hpp"
#include "profile_scope.hpp"

namespace {

using namespace commpress::testing::comm;
namespace model = commpress::model;
using commpress::ErrorCode;

model::MachineProfile machine(double alpha, double beta) {
  model::MachineProfile m;
  m.origin = "select_test";
  m.network.eager = {alpha, beta};
  m.network.rendezvous = {alpha, beta};
  m.network.switch_bytes = 0;
  m.gamma = 2e-10;
  for (Dtype d : {Dtype::f32, Dtype::f64})
    m.codecs.push_back({"szp", d, 3e9, 4e9, 5e9, 4e9, 2e-6, 8});
  return m;
}

// A random walk per rank; rank 1 (when there is one) gets a constant array instead, so the
// ranks' samples differ wildly.
std::vector<float> walk(size_t n, int rank) {
  std::vector<float> v(n, 3.0f);
  if (rank == 1) return v;
  std::mt19937 gen(100 + rank);
  std::normal_distribution<float> step(0.0f, 1.0f);
  float x = 0;
  for (float& e : v) e = x += step(gen);
  return v;
}

int same_algorithm_everywhere(cc::Algorithm a) {
  int lo = int(a), hi = int(a);
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

constexpr size_t kCount = size_t{1} << 20;  // 4 MiB of f32

TEST(Select, SlowNetworkCompressesWithOneDecision) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  ProfileScope scope(machine(50e-6, 8e-9));  // 1 Gbit/s
  const cc::Options opts{"szp", ErrorBound::relative(1e-4)};
  auto in = walk(kCount, world_rank());
  std::vector<float> out(kCount);
  auto r = cc::allreduce(in.data(), out.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r->algorithm, cc::Algorithm::Mpi);
  EXPECT_TRUE(same_algorithm_everywhere(r->algorithm));
  EXPECT_GT(r->predicted_seconds, 0.0);
  EXPECT_TRUE(same_everywhere(r->predicted_seconds));
  EXPECT_GT(r->guaranteed_abs_bound, 0.0);
  std::vector<float> exact(kCount);
  MPI_Allreduce(in.data(), exact.data(), int(kCount), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0;
  for (size_t i = 0; i < kCount; ++i) worst = std::max(worst, std::abs(double(out[i]) - exact[i]));
  // MPI's own float sum rounds too: allow a few ulps of the magnitudes involved on top.
  EXPECT_LE(worst, r->guaranteed_abs_bound * 1.01 + 1e-3) << cc::algorithm_name(r->algorithm);

  Bytes buf = make_bytes(Dtype::f32, kCount, 7);  // the root's data decides a bcast
  auto b = cc::bcast(buf.data(), kCount, Dtype::f32, 0, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_TRUE(same_algorithm_everywhere(b->algorithm));
  EXPECT_GT(b->predicted_seconds, 0.0);
}

TEST(Select, FastNetworkDeclines) {
  ProfileScope scope(machine(0.5e-6, 0.05e-9));  // 20 GB/s, faster than the codec
  const cc::Options opts{"szp", ErrorBound::relative(1e-4)};
  auto in = walk(kCount, world_rank());
  std::vector<float> out(kCount);
  auto r = cc::allreduce(in.data(), out.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, cc::Algorithm::Mpi);
  EXPECT_EQ(r->codec, "none");
  if (world_size() > 1) { EXPECT_GT(r->predicted_seconds, 0.0); }
  auto g = cc::allgather(in.data(), std::vector<float>(kCount * world_size()).data(), kCount,
                         Dtype::f32, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->algorithm, cc::Algorithm::Mpi);
}

TEST(Select, OversubscribedNodeDeclines) {
  // The slow network of the first test, but 64 ranks per core on this node.
  ProfileScope scope(machine(50e-6, 8e-9), 64 * 1024);
  auto in = walk(kCount, world_rank());
  std::vector<float> out(kCount);
  auto r = cc::allreduce(in.data(), out.data(), kCount, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD,
                         {"szp", ErrorBound::relative(1e-4)});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, cc::Algorithm::Mpi);
}

TEST(Select, ForcedAlgorithmIsPredictedToo) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  ProfileScope scope(machine(0.5e-6, 0.05e-9));
  auto in = walk(kCount / 4, world_rank());
  std::vector<float> out(in.size() * world_size());
  auto r = cc::allgather(in.data(), out.data(), in.size(), Dtype::f32, MPI_COMM_WORLD,
                         {"szp", ErrorBound::absolute(1e-3), cc::Algorithm::Ring});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, cc::Algorithm::Ring);
  EXPECT_GT(r->predicted_seconds, 0.0);
}

// Each rank holds one block of a wandering signal, lifted by its rank: the REL bound is
// relative to all blocks' range, which no rank sees when it samples its own. The prediction
// must be priced at the agreed range: equal to the plan made with the ratio the blocks then
// reach (on the range each rank saw alone it was 0.75-0.81 of the simulated time, scale.md).
TEST(Select, AllgatherPricesItsBlocksAtTheAgreedRange) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  const model::MachineProfile m = machine(50e-6, 8e-9);
  ProfileScope scope(m);
  const size_t n = 32768;
  std::mt19937 gen(7 + world_rank());
  std::normal_distribution<double> step(0.0, 1.0);
  std::vector<double> mine(n);
  double x = 600.0 * world_rank();
  for (double& e : mine) e = x += step(gen);
  const cc::Options opts{"szp", ErrorBound::relative(1e-4), cc::Algorithm::RecursiveDoubling};
  std::vector<double> all(n * size_t(world_size()));
  auto r = cc::allgather(mine.data(), all.data(), n, Dtype::f64, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_GT(r->guaranteed_abs_bound, 0.0);
  std::vector<std::byte> frame;
  ASSERT_TRUE(commpress::codec::find_codec("szp")
                  ->compress(mine.data(), n, Dtype::f64,
                             ErrorBound::absolute(r->guaranteed_abs_bound), frame)
                  .ok());
  double reached = double(n * sizeof(double)) / double(frame.size());
  MPI_Allreduce(MPI_IN_PLACE, &reached, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  cc::AgreedCall call;
  call.operation = model::Operation::allgather;
  call.ranks = world_size();
  call.count = n;
  call.dtype = Dtype::f64;
  call.ratio_at_bound = reached;
  call.one_node = true;
  auto plan = cc::plan_allgather(call, m, opts);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_NEAR(r->predicted_seconds, plan->predicted_seconds, 0.1 * plan->predicted_seconds)
      << "ratio reached " << reached;
}

TEST(Select, DisagreeingRanksStillFailTogether) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  ProfileScope scope(machine(50e-6, 8e-9));
  const int odd = world_size() - 1;
  // Counts straddling any size threshold, and a codec only some ranks use (those decide
  // without sampling): all meet in the one argument agreement and fail there, none hangs.
  const size_t n = world_rank() == odd ? 16 : kCount;
  auto in = walk(n, world_rank());
  std::vector<float> out(n);
  auto r = cc::allreduce(in.data(), out.data(), n, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD,
                         {"szp", ErrorBound::relative(1e-4)});
  expect_failed_alike(r.status(), "count", ErrorCode::mismatch);
  auto b = cc::bcast(in.data(), 16, Dtype::f32, 0, MPI_COMM_WORLD,
                     {world_rank() == odd ? "none" : "szp", ErrorBound::absolute(1e-3)});
  expect_failed_alike(b.status(), "codec", ErrorCode::mismatch);
}

TEST(Select, RanksWithDifferentProfilesFailTogether) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  // Auto decides on every rank from its profile; a rank with another one could decide
  // otherwise and leave the rest waiting in a different algorithm.
  const bool odd = world_rank() == world_size() - 1;
  ProfileScope scope(odd ? machine(0.5e-6, 0.05e-9) : machine(50e-6, 8e-9));
  auto in = walk(kCount / 16, world_rank());
  std::vector<float> out(in.size());
  auto r = cc::allreduce(in.data(), out.data(), in.size(), Dtype::f32, cc::Op::sum,
                         MPI_COMM_WORLD, {"szp", ErrorBound::relative(1e-4)});
  expect_failed_alike(r.status(), "machine profile", ErrorCode::mismatch);
  EXPECT_NE(r.status().message().find("machine profile"), std::string::npos)
      << r.status().to_string();
  // Without a codec Auto still decides from the profile (MPI's own or the plain ring).
  std::vector<float> block(in.size() / size_t(world_size()) + 1);
  std::vector<float> all_in(block.size() * size_t(world_size()), 1.0f);
  auto n = cc::reduce_scatter_block(all_in.data(), block.data(), block.size(), Dtype::f32,
                                    cc::Op::sum, MPI_COMM_WORLD, {"none", ErrorBound::lossless()});
  expect_failed_alike(n.status(), "no codec", ErrorCode::mismatch);
  // A forced reduction still takes its break-even size from the profile: agreed, and here
  // different. A forced allgather takes nothing from it: it runs.
  auto f = cc::allreduce(in.data(), out.data(), in.size(), Dtype::f32, cc::Op::sum,
                         MPI_COMM_WORLD,
                         {"szp", ErrorBound::relative(1e-4), cc::Algorithm::Rabenseifner});
  expect_failed_alike(f.status(), "forced reduction", ErrorCode::mismatch);
  std::vector<float> all(in.size() * size_t(world_size()));
  auto g = cc::allgather(in.data(), all.data(), in.size(), Dtype::f32, MPI_COMM_WORLD,
                         {"szp", ErrorBound::relative(1e-4), cc::Algorithm::Ring});
  EXPECT_TRUE(g.ok()) << g.status().to_string();
}

// Runs reduce_scatter_block with Auto under profile m; returns what ran (after checking the
// result against MPI's own within twice the reported bound).
cc::Algorithm reduce_scatter_under(const model::MachineProfile& m, const std::string& codec) {
  ProfileScope scope(m);
  const size_t n = 3000;
  auto in = walk(n * size_t(world_size()), world_rank());
  std::vector<float> out(n), ref(n);
  auto r = cc::reduce_scatter_block(in.data(), out.data(), n, Dtype::f32, cc::Op::sum,
                                    MPI_COMM_WORLD, {codec, ErrorBound::relative(1e-4)});
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return cc::Algorithm::Auto;
  EXPECT_TRUE(same_algorithm_everywhere(r->algorithm));
  MPI_Reduce_scatter_block(in.data(), ref.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < n; ++i)
    EXPECT_LE(std::abs(double(out[i]) - ref[i]), 2 * r->guaranteed_abs_bound) << i;
  return r->algorithm;
}

TEST(Select, ReduceScatterRunsThePlainRingWhereMpiIsMeasuredSlower) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  const int p = world_size();
  model::MachineProfile m = machine(0.5e-6, 0.05e-9);  // compression does not pay
  m.reduce_scatter_mpi = {p, {{1024, 2.0}, {1 << 20, 3.0}}};
  EXPECT_EQ(reduce_scatter_under(m, "szp"), cc::Algorithm::PlainRing);
  EXPECT_EQ(reduce_scatter_under(m, "none"), cc::Algorithm::PlainRing);  // nothing to compress
  // No faster measured, measured at another rank count, or not at all: MPI's own.
  m.reduce_scatter_mpi = {p, {{1024, 1.0}, {1 << 20, 1.02}}};
  EXPECT_EQ(reduce_scatter_under(m, "szp"), cc::Algorithm::Mpi);
  m.reduce_scatter_mpi = {p + 1, {{1024, 2.0}, {1 << 20, 3.0}}};
  EXPECT_EQ(reduce_scatter_under(m, "szp"), cc::Algorithm::Mpi);
  m.reduce_scatter_mpi = {};
  EXPECT_EQ(reduce_scatter_under(m, "none"), cc::Algorithm::Mpi);
}

TEST(Select, BcastRunsThePlainTreeWhereMpiIsMeasuredSlower) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  model::MachineProfile m = machine(0.5e-6, 0.05e-9);  // compression does not pay
  auto run = [&](const model::MachineProfile& profile) {
    ProfileScope scope(profile);
    Bytes exact = make_bytes(Dtype::f32, 5000, 3);
    Bytes buf = world_rank() == 0 ? exact : Bytes(exact.size(), std::byte{0});
    auto r = cc::bcast(buf.data(), 5000, Dtype::f32, 0, MPI_COMM_WORLD,
                       {"szp", ErrorBound::relative(1e-4)});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_TRUE(buf == exact);
    if (!r.ok()) return cc::Algorithm::Auto;
    EXPECT_TRUE(same_algorithm_everywhere(r->algorithm));
    return r->algorithm;
  };
  m.bcast_mpi = {world_size(), {{1024, 1.5}, {1 << 20, 1.5}}};
  EXPECT_EQ(run(m), cc::Algorithm::PlainBinomial);
  m.bcast_mpi = {world_size(), {{1024, 0.9}, {1 << 20, 0.9}}};  // MPI's measured faster
  EXPECT_EQ(run(m), cc::Algorithm::Mpi);
  m.bcast_mpi = {};
  EXPECT_EQ(run(m), cc::Algorithm::Mpi);
  // On one node, the shared window where MPI's is measured slower still than the tree.
  m.bcast_mpi = {world_size(), {{1024, 1.5}, {1 << 20, 1.5}}};
  m.bcast_window_mpi = {world_size(), {{1024, 2.0}, {1 << 20, 2.0}}};
  EXPECT_EQ(run(m), cc::Algorithm::SharedWindow);
  m.bcast_window_mpi = {world_size(), {{1024, 1.5}, {1 << 20, 1.5}}};  // no faster than the tree
  EXPECT_EQ(run(m), cc::Algorithm::PlainBinomial);
  m.bcast_mpi = {};
  EXPECT_EQ(run(m), cc::Algorithm::SharedWindow);
}

// Allreduce and allgather under profile m, twice on n floats then once on 16: what ran each
// time, results checked against MPI's own. Where the window runs, the second allreduce finds
// the input slot of the first (the range pass copies into it before the agreement).
std::vector<cc::Algorithm> shared_window_under(const model::MachineProfile& m, size_t n) {
  ProfileScope scope(m);
  std::vector<cc::Algorithm> ran;
  for (size_t count : {n, n, size_t{16}}) {
    std::vector<float> in(count), out(count), ref(count);
    for (size_t i = 0; i < count; ++i) in[i] = float(std::sin(0.01 * double(i) + world_rank()));
    auto r = cc::allreduce(in.data(), out.data(), count, Dtype::f32, cc::Op::sum, MPI_COMM_WORLD,
                           {"szp", ErrorBound::relative(1e-4)});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return ran;
    EXPECT_TRUE(same_algorithm_everywhere(r->algorithm));
    MPI_Allreduce(in.data(), ref.data(), int(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < count; ++i)
      EXPECT_LE(std::abs(double(out[i]) - ref[i]), 2 * r->guaranteed_abs_bound) << i;
    ran.push_back(r->algorithm);
    std::vector<float> all(count * size_t(world_size()));
    auto g = cc::allgather(in.data(), all.data(), count, Dtype::f32, MPI_COMM_WORLD,
                           {"szp", ErrorBound::relative(1e-4)});
    EXPECT_TRUE(g.ok()) << g.status().to_string();
    if (!g.ok()) return ran;
    std::vector<float> exact(all.size());
    MPI_Allgather(in.data(), int(count), MPI_FLOAT, exact.data(), int(count), MPI_FLOAT,
                  MPI_COMM_WORLD);
    if (g->algorithm != cc::Algorithm::Ring && g->algorithm != cc::Algorithm::RecursiveDoubling) {
      EXPECT_TRUE(all == exact) << cc::algorithm_name(g->algorithm);
    }
    ran.push_back(g->algorithm);
  }
  return ran;
}

TEST(Select, SharedWindowRunsOnOneNodeWhereMpiIsMeasuredSlower) {
  if (world_size() == 1) GTEST_SKIP() << "one rank moves nothing";
  using A = cc::Algorithm;
  const int p = world_size();
  model::MachineProfile m = machine(0.5e-6, 0.05e-9);  // compression does not pay
  m.allreduce_mpi = m.allgather_mpi = {p, {{1024, 2.0}, {1 << 20, 2.0}}};
  EXPECT_EQ(shared_window_under(m, 30011), std::vector<A>(6, A::SharedWindow));
  {
    // Nothing to compress with: the agreement still tells where the ranks run.
    ProfileScope scope(m);
    std::vector<double> in(5000, world_rank() + 0.5), out(5000);
    auto r = cc::allreduce(in.data(), out.data(), in.size(), Dtype::f64, cc::Op::sum,
                           MPI_COMM_WORLD, {"none", ErrorBound::lossless()});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->algorithm, A::SharedWindow);
    EXPECT_EQ(out[4999], 0.5 * world_size() * world_size());
  }
  // Faster only for large vectors: the small call runs MPI's own.
  m.allreduce_mpi = m.allgather_mpi = {p, {{1024, 0.5}, {1 << 20, 2.0}}};
  EXPECT_EQ(shared_window_under(m, 1 << 18),
            (std::vector<A>{A::SharedWindow, A::SharedWindow, A::SharedWindow, A::SharedWindow,
                            A::Mpi, A::Mpi}));
  // Measured slower, at another rank count, or not at all: MPI's own.
  for (model::MpiAgainstPlain other :
       {model::MpiAgainstPlain{p, {{1024, 0.9}}}, model::MpiAgainstPlain{p + 1, {{1024, 2.0}}},
        model::MpiAgainstPlain{}}) {
    m.allreduce_mpi = m.allgather_mpi = other;
    EXPECT_EQ(shared_window_under(m, 30011), std::vector<A>(6, A::Mpi));
  }
}

TEST(Select, PointToPointKeepsTheCheckedProtocol) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  ProfileScope scope(machine(50e-6, 8e-9));
  const int me = world_rank();
  if (me > 1) return;
  auto data = walk(kCount, 0);
  const cc::Options opts{"szp", ErrorBound::absolute(1e-2)};
  if (me == 0) {
    auto r = cc::send(data.data(), kCount, Dtype::f32, 1, 5, MPI_COMM_WORLD, opts);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->algorithm, cc::Algorithm::Direct);
    EXPECT_GT(r->predicted_seconds, 0.0);
    EXPECT_LT(r->bytes_sent, r->raw_bytes);
  } else {
    std::vector<float> got(kCount);
    auto r = cc::recv(got.data(), kCount, Dtype::f32, 0, 5, MPI_COMM_WORLD, opts);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (size_t i = 0; i < kCount; i += 997) EXPECT_LE(std::abs(got[i] - data[i]), 1e-2 * 1.0001);
  }
}

// Each side decides from its own profile; the sender's header says how the chunks travel, so
// a receiver that would have decided otherwise still decodes them, and the two sides'
// requests (codec, bound) are compared even when the chunks travel uncompressed.
TEST(Select, PointToPointDeclinesWhenCompressingDoesNotPay) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  const int me = world_rank();
  if (me > 1) return;
  // Rank 0 sees a fast network (Auto declines), rank 1 a slow one (Auto compresses).
  ProfileScope scope(me == 0 ? machine(1e-6, 1e-12) : machine(50e-6, 8e-9));
  const auto data = walk(kCount, 0);
  const cc::Options opts{"szp", ErrorBound::absolute(1e-2)};
  std::vector<float> got(kCount, -1.0f);
  for (int sender : {0, 1}) {
    const bool plain = sender == 0;
    if (me == sender) {
      auto r = cc::send(data.data(), kCount, Dtype::f32, 1 - me, 6, MPI_COMM_WORLD, opts);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_EQ(r->codec, plain ? "none" : "szp");
      EXPECT_EQ(r->guaranteed_abs_bound, plain ? 0.0 : 1e-2);
      if (plain)
        EXPECT_GE(r->bytes_sent, r->raw_bytes);
      else
        EXPECT_LT(r->bytes_sent, r->raw_bytes);
    } else {
      auto r = cc::recv(got.data(), kCount, Dtype::f32, 1 - me, 6, MPI_COMM_WORLD, opts);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_EQ(r->codec, plain ? "none" : "szp");
      if (plain) {
        EXPECT_TRUE(got == data) << "uncompressed chunks must arrive exactly";
      } else {
        int outside = 0;
        for (size_t i = 0; i < kCount; ++i) outside += !(std::abs(got[i] - data[i]) <= 1e-2);
        EXPECT_EQ(outside, 0);
      }
    }
  }
  // Uncompressed chunks do not hide a disagreement on the bound.
  if (me == 0) {
    EXPECT_TRUE(cc::send(data.data(), kCount, Dtype::f32, 1, 7, MPI_COMM_WORLD, opts).ok());
  } else {
    auto r = cc::recv(got.data(), kCount, Dtype::f32, 0, 7, MPI_COMM_WORLD,
                      {"szp", ErrorBound::absolute(1e-3)});
    EXPECT_EQ(r.status().code(), ErrorCode::mismatch) << r.status().to_string();
  }
}

}  // namespace
