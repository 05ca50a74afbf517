// Plans of the collectives and of point-to-point (commpress/collective_plan.hpp): the plan a
// call makes is the same on every rank and the same twice; executing it gives the bits and the report of the call that
// plans for itself; Hierarchical on uneven nodes plans its ring; the pure plan over the rank
// count is the collective one; a plan for another communicator size or operation fails on
// every rank.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "comm/select.hpp"
#include "comm_test_support.hpp"
#include "commpress/collective_plan.hpp"

namespace commpress::testing::comm {
namespace {

using cc::Algorithm;
using cc::CollectivePlan;
using cc::Op;
using cc::Options;
using cc::Report;

constexpr size_t kCount = 3000;

Options options(Algorithm a, const std::string& codec, ErrorBound bound, int pretend = 0) {
  Options o;
  o.algorithm = a;
  o.codec = codec;
  o.bound = bound;
  o.pretend_ranks_per_node = pretend;
  return o;
}

// Auto and forced algorithms; lossy, lossless and nothing to compress.
std::vector<Options> cases() {
  return {options(Algorithm::Auto, "auto", ErrorBound::absolute(1e-3)),
          options(Algorithm::Auto, "auto", ErrorBound::lossless()),
          options(Algorithm::Auto, "szp", ErrorBound::relative(1e-4)),
          options(Algorithm::DocRing, "szp", ErrorBound::absolute(1e-3)),
          options(Algorithm::HomomorphicRing, "szp", ErrorBound::relative(1e-4)),
          options(Algorithm::Rabenseifner, "szp", ErrorBound::absolute(1e-3)),
          options(Algorithm::Hierarchical, "szp", ErrorBound::absolute(1e-3), 2),
          options(Algorithm::Mpi, "none", ErrorBound::lossless())};
}

bool same_text_everywhere(const std::string& s) {
  if (!same_everywhere(double(s.size()))) return false;
  Bytes b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return same_bytes_everywhere(b);
}

void expect_same_report(const Report& x, const Report& y, const std::string& what) {
  EXPECT_EQ(x.algorithm, y.algorithm) << what;
  EXPECT_EQ(x.codec, y.codec) << what;
  EXPECT_EQ(x.raw_bytes, y.raw_bytes) << what;
  EXPECT_EQ(x.bytes_sent, y.bytes_sent) << what;
  EXPECT_EQ(x.guaranteed_abs_bound, y.guaranteed_abs_bound) << what;
  EXPECT_EQ(x.predicted_seconds, y.predicted_seconds) << what;
  EXPECT_EQ(x.chunk_bytes, y.chunk_bytes) << what;
}

TEST(CollectivePlan, IsAgreedAcrossRanksAndDeterministic) {
  const Bytes in = make_bytes(Dtype::f64, kCount, 11 + uint64_t(world_rank()));
  for (const Options& o : cases()) {
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    auto a = cc::plan_allreduce(in.data(), kCount, Dtype::f64, Op::sum, MPI_COMM_WORLD, o);
    auto b = cc::plan_allreduce(in.data(), kCount, Dtype::f64, Op::sum, MPI_COMM_WORLD, o);
    ASSERT_TRUE(a.ok() && b.ok()) << what << ": " << a.status().to_string();
    EXPECT_NE(a->algorithm, Algorithm::Auto) << what;
    EXPECT_EQ(cc::plan_to_json(*a), cc::plan_to_json(*b)) << what;
    EXPECT_TRUE(same_text_everywhere(cc::plan_to_json(*a)))
        << what << " on rank " << world_rank() << ":\n" << cc::plan_to_text(*a);
    if (a->requested_abs_bound > 0) EXPECT_LE(a->guaranteed_abs_bound, a->requested_abs_bound) << what;
  }
}

TEST(CollectivePlan, ExecutingItIsTheCallThatPlansForItself) {
  const int p = world_size();
  const Bytes in = make_bytes(Dtype::f64, kCount * size_t(p), 5 + uint64_t(world_rank()));
  const size_t m = kCount / 4;  // reduce_scatter_block's block
  for (const Options& o : cases()) {
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    // allreduce
    Bytes direct(kCount * 8), planned(kCount * 8);
    auto r1 = cc::allreduce(in.data(), direct.data(), kCount, Dtype::f64, Op::sum,
                            MPI_COMM_WORLD, o);
    auto plan = cc::plan_allreduce(in.data(), kCount, Dtype::f64, Op::sum, MPI_COMM_WORLD, o);
    ASSERT_TRUE(r1.ok() && plan.ok()) << what << ": " << r1.status().to_string();
    auto r2 = cc::allreduce(*plan, in.data(), planned.data(), MPI_COMM_WORLD);
    ASSERT_TRUE(r2.ok()) << what << ": " << r2.status().to_string();
    EXPECT_EQ(direct, planned) << what;
    expect_same_report(*r1, *r2, "allreduce " + what);
    EXPECT_EQ(r2->algorithm, plan->runs) << what;
    EXPECT_EQ(r2->guaranteed_abs_bound, plan->guaranteed_abs_bound) << what;
    // reduce_scatter_block
    Bytes block1(m * 8), block2(m * 8);
    auto s1 = cc::reduce_scatter_block(in.data(), block1.data(), m, Dtype::f64, Op::sum,
                                       MPI_COMM_WORLD, o);
    auto splan =
        cc::plan_reduce_scatter_block(in.data(), m, Dtype::f64, Op::sum, MPI_COMM_WORLD, o);
    // Forced algorithms that do not serve reduce_scatter_block fail alike in both.
    ASSERT_EQ(s1.ok(), splan.ok()) << what;
    if (splan.ok()) {
      auto s2 = cc::reduce_scatter_block(*splan, in.data(), block2.data(), MPI_COMM_WORLD);
      ASSERT_TRUE(s2.ok()) << what << ": " << s2.status().to_string();
      EXPECT_EQ(block1, block2) << what;
      expect_same_report(*s1, *s2, "reduce_scatter_block " + what);
    }
    // reduce, to the last rank
    const int root = p - 1;
    Bytes at1(kCount * 8), at2(kCount * 8);
    auto d1 = cc::reduce(in.data(), at1.data(), kCount, Dtype::f64, Op::sum, root,
                         MPI_COMM_WORLD, o);
    auto dplan = cc::plan_reduce(in.data(), kCount, Dtype::f64, Op::sum, root, MPI_COMM_WORLD, o);
    ASSERT_EQ(d1.ok(), dplan.ok()) << what;
    if (dplan.ok()) {
      EXPECT_EQ(dplan->root, root);
      auto d2 = cc::reduce(*dplan, in.data(), at2.data(), MPI_COMM_WORLD);
      ASSERT_TRUE(d2.ok()) << what << ": " << d2.status().to_string();
      if (world_rank() == root) EXPECT_EQ(at1, at2) << what;
      expect_same_report(*d1, *d2, "reduce " + what);
    }
  }
}

// The movement operations that select: bcast from the last rank, allgather.
TEST(CollectivePlan, MovementPlansRunAsTheCallThatPlansForItself) {
  const int p = world_size(), root = p - 1;
  const Bytes mine = make_bytes(Dtype::f32, kCount, 31 + uint64_t(world_rank()));
  const std::vector<Options> movement = {
      options(Algorithm::Auto, "auto", ErrorBound::absolute(1e-3)),
      options(Algorithm::Auto, "zstd-1", ErrorBound::lossless()),
      options(Algorithm::Binomial, "szp", ErrorBound::relative(1e-3)),
      options(Algorithm::Ring, "szp", ErrorBound::absolute(1e-2)),
      options(Algorithm::RecursiveDoubling, "lz4", ErrorBound::lossless()),
      options(Algorithm::Mpi, "none", ErrorBound::lossless())};
  for (const Options& o : movement) {
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    Bytes direct = mine, planned = mine;
    auto b1 = cc::bcast(direct.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, o);
    auto bplan = cc::plan_bcast(mine.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, o);
    ASSERT_EQ(b1.ok(), bplan.ok()) << what;  // algorithms bcast lacks fail alike in both
    if (bplan.ok()) {
      EXPECT_TRUE(same_text_everywhere(cc::plan_to_json(*bplan))) << what;
      auto b2 = cc::bcast(*bplan, planned.data(), MPI_COMM_WORLD);
      ASSERT_TRUE(b2.ok()) << what << ": " << b2.status().to_string();
      EXPECT_EQ(direct, planned) << what;
      expect_same_report(*b1, *b2, "bcast " + what);
    }
    Bytes all1(kCount * 4 * size_t(p)), all2(all1.size());
    auto g1 = cc::allgather(mine.data(), all1.data(), kCount, Dtype::f32, MPI_COMM_WORLD, o);
    auto gplan = cc::plan_allgather(mine.data(), kCount, Dtype::f32, MPI_COMM_WORLD, o);
    ASSERT_EQ(g1.ok(), gplan.ok()) << what;
    if (gplan.ok()) {
      EXPECT_TRUE(same_text_everywhere(cc::plan_to_json(*gplan))) << what;
      auto g2 = cc::allgather(*gplan, mine.data(), all2.data(), MPI_COMM_WORLD);
      ASSERT_TRUE(g2.ok()) << what << ": " << g2.status().to_string();
      EXPECT_EQ(all1, all2) << what;
      expect_same_report(*g1, *g2, "allgather " + what);
    }
  }
  // A plan of one operation does not run as another.
  auto gplan = cc::plan_allgather(mine.data(), kCount, Dtype::f32, MPI_COMM_WORLD, {});
  ASSERT_TRUE(gplan.ok());
  Bytes buf = mine;
  auto wrong = cc::bcast(*gplan, buf.data(), MPI_COMM_WORLD);
  expect_failed_alike(wrong.status(), "an allgather plan run as bcast",
                      ErrorCode::invalid_argument);
}

// scatter and gather from the last rank: the plan is the same everywhere, and running it gives
// the bits and the report of the call that plans for itself; a gather plan does not scatter.
TEST(CollectivePlan, ScatterAndGatherRunTheirPlans) {
  const int p = world_size(), root = p - 1;
  const size_t bytes = kCount * 4;
  const Bytes all = make_bytes(Dtype::f32, kCount * size_t(p), 41);  // the root's p blocks
  const Bytes mine = make_bytes(Dtype::f32, kCount, 43 + uint64_t(world_rank()));
  const std::vector<Options> movement = {
      options(Algorithm::Auto, "auto", ErrorBound::absolute(1e-3)),
      options(Algorithm::Binomial, "szp", ErrorBound::relative(1e-3)),
      options(Algorithm::Binomial, "lz4", ErrorBound::lossless()),
      options(Algorithm::Mpi, "none", ErrorBound::lossless())};
  for (const Options& o : movement) {
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    Bytes got1(bytes), got2(bytes);
    auto s1 = cc::scatter(all.data(), got1.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, o);
    ASSERT_TRUE(s1.ok()) << what << ": " << s1.status().to_string();
    auto splan = cc::plan_scatter(world_rank() == root ? all.data() : nullptr, kCount,
                                  Dtype::f32, root, MPI_COMM_WORLD, o);
    ASSERT_TRUE(splan.ok()) << what << ": " << splan.status().to_string();
    EXPECT_NE(splan->algorithm, Algorithm::Auto) << what;
    EXPECT_EQ(splan->root, root) << what;
    EXPECT_TRUE(same_text_everywhere(cc::plan_to_json(*splan))) << what;
    auto s2 = cc::scatter(*splan, all.data(), got2.data(), MPI_COMM_WORLD);
    ASSERT_TRUE(s2.ok()) << what << ": " << s2.status().to_string();
    EXPECT_EQ(got1, got2) << what;
    EXPECT_EQ(s2->algorithm, splan->algorithm) << what;
    expect_same_report(*s1, *s2, "scatter " + what);

    Bytes out1(bytes * size_t(p)), out2(out1.size());
    auto g1 = cc::gather(mine.data(), out1.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, o);
    ASSERT_TRUE(g1.ok()) << what << ": " << g1.status().to_string();
    auto gplan = cc::plan_gather(mine.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, o);
    ASSERT_TRUE(gplan.ok()) << what << ": " << gplan.status().to_string();
    EXPECT_TRUE(same_text_everywhere(cc::plan_to_json(*gplan))) << what;
    auto g2 = cc::gather(*gplan, mine.data(), out2.data(), MPI_COMM_WORLD);
    ASSERT_TRUE(g2.ok()) << what << ": " << g2.status().to_string();
    if (world_rank() == root) {
      EXPECT_EQ(out1, out2) << what;
    }
    EXPECT_EQ(g2->algorithm, gplan->algorithm) << what;
    expect_same_report(*g1, *g2, "gather " + what);
  }
  // The pure plan over the launch's rank count is the collective one (forced: no sample).
  const Options forced = options(Algorithm::Binomial, "szp", ErrorBound::absolute(1e-2));
  auto collective = cc::plan_gather(mine.data(), kCount, Dtype::f32, root, MPI_COMM_WORLD, forced);
  ASSERT_TRUE(collective.ok()) << collective.status().to_string();
  cc::AgreedCall call;
  call.ranks = p;
  call.count = kCount;
  call.dtype = Dtype::f32;
  call.root = root;
  call.lo = collective->lo;
  call.hi = collective->hi;
  auto pure = cc::plan_gather(call, cc::detail::machine_profile(), forced);
  ASSERT_TRUE(pure.ok()) << pure.status().to_string();
  CollectivePlan expected = *collective;
  expected.predicted_seconds = pure->predicted_seconds;
  EXPECT_EQ(cc::plan_to_json(*pure), cc::plan_to_json(expected));
  // A gather plan does not run as scatter.
  Bytes buf(bytes);
  auto wrong = cc::scatter(*collective, all.data(), buf.data(), MPI_COMM_WORLD);
  expect_failed_alike(wrong.status(), "a gather plan run as scatter",
                      ErrorCode::invalid_argument);
}

// Point-to-point's plan is the sender's own: a send reports what plan_p2p planned.
TEST(CollectivePlan, PointToPointSendsItsPlan) {
  if (world_size() < 2) GTEST_SKIP() << "needs a sender and a receiver";
  const Bytes mine = make_bytes(Dtype::f64, kCount, 51);
  const std::vector<Options> sends = {
      options(Algorithm::Auto, "szp", ErrorBound::absolute(1e-3)),
      options(Algorithm::Direct, "zstd-1", ErrorBound::lossless()),
      options(Algorithm::Mpi, "none", ErrorBound::lossless())};
  for (Options o : sends) {
    o.chunk_bytes = o.algorithm == Algorithm::Direct ? 8192 : 0;
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    auto plan = cc::plan_p2p(kCount, Dtype::f64, cc::detail::machine_profile(), o);
    ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().to_string();
    EXPECT_EQ(plan->operation, commpress::model::Operation::p2p) << what;
    EXPECT_NE(plan->algorithm, Algorithm::Auto) << what;
    if (o.algorithm == Algorithm::Direct) {
      EXPECT_EQ(plan->chunk_bytes, 8192u) << what;
    }
    if (world_rank() == 0) {
      auto r = cc::send(mine.data(), kCount, Dtype::f64, 1, 7, MPI_COMM_WORLD, o);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      EXPECT_EQ(r->algorithm, plan->algorithm) << what;
      EXPECT_EQ(r->predicted_seconds, plan->predicted_seconds) << what;
      if (plan->algorithm == Algorithm::Direct) {
        EXPECT_EQ(r->chunk_bytes, plan->chunk_bytes) << what;
        EXPECT_EQ(r->codec, plan->compress ? plan->codec : std::string("none")) << what;
      }
    } else if (world_rank() == 1) {
      Bytes got(mine.size());
      auto r = cc::recv(got.data(), kCount, Dtype::f64, 0, 7, MPI_COMM_WORLD, o);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    }
  }
  auto ring = cc::plan_p2p(kCount, Dtype::f64, cc::detail::machine_profile(),
                           options(Algorithm::Ring, "szp", ErrorBound::absolute(1e-3)));
  EXPECT_EQ(ring.status().code(), ErrorCode::invalid_argument);
}

// Pretend nodes of 2: on an odd rank count the nodes are uneven, and the plan (not the run)
// decides that the cross-node ring runs over everyone.
TEST(CollectivePlan, HierarchicalOnUnevenNodesPlansItsRing) {
  const int p = world_size();
  const Bytes in = make_bytes(Dtype::f32, kCount, 3 + uint64_t(world_rank()));
  const Options o = options(Algorithm::Hierarchical, "szp", ErrorBound::absolute(1e-2), 2);
  auto plan = cc::plan_allreduce(in.data(), kCount, Dtype::f32, Op::sum, MPI_COMM_WORLD, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->algorithm, Algorithm::Hierarchical);
  EXPECT_EQ(plan->nodes.ranks_per_node, 2);
  EXPECT_EQ(plan->nodes.nodes, (p + 1) / 2);
  const bool even = p % 2 == 0 || p == 1;
  EXPECT_EQ(plan->nodes.even, even);
  EXPECT_EQ(plan->runs, even ? Algorithm::Hierarchical : Algorithm::HomomorphicRing);
  // Only the ring across nodes quantizes where the nodes are even (nothing on one node).
  const int quantized = even ? (p / 2 > 1 ? p / 2 : 0) : p;
  EXPECT_EQ(plan->quantized_additive, quantized);
  Bytes out(kCount * 4);
  auto r = cc::allreduce(*plan, in.data(), out.data(), MPI_COMM_WORLD);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, plan->runs);
}

// The pure plan over the launch's rank count and the agreed range is the collective plan.
TEST(CollectivePlan, PurePlanIsTheCollectiveOne) {
  const Bytes in = make_bytes(Dtype::f64, kCount, 17 + uint64_t(world_rank()));
  for (const Options& o : cases()) {
    if (o.algorithm == Algorithm::Auto) continue;  // Auto's choice needs the sampled ratio
    const std::string what = describe({o.codec, o.bound}) + " " + cc::algorithm_name(o.algorithm);
    auto collective =
        cc::plan_allreduce(in.data(), kCount, Dtype::f64, Op::sum, MPI_COMM_WORLD, o);
    ASSERT_TRUE(collective.ok()) << what << ": " << collective.status().to_string();
    cc::AgreedCall call;
    call.ranks = world_size();
    call.count = kCount;
    call.dtype = Dtype::f64;
    call.lo = collective->lo;
    call.hi = collective->hi;
    call.nodes = collective->nodes;
    auto pure = cc::plan_allreduce(call, cc::detail::machine_profile(), o);
    ASSERT_TRUE(pure.ok()) << what << ": " << pure.status().to_string();
    CollectivePlan expected = *collective;
    expected.predicted_seconds = pure->predicted_seconds;  // the pure one has no sample
    EXPECT_EQ(cc::plan_to_json(*pure), cc::plan_to_json(expected)) << what;
  }
}

TEST(CollectivePlan, APlanForAnotherCallFailsOnEveryRank) {
  const int p = world_size();
  const Bytes in = make_bytes(Dtype::f32, kCount, 23 + uint64_t(world_rank()));
  Bytes out(kCount * 4);
  const Options o = options(Algorithm::DocRing, "szp", ErrorBound::absolute(1e-2));
  cc::AgreedCall call;
  call.ranks = p + 1;
  call.count = kCount;
  call.lo = -100;
  call.hi = 100;
  auto other = cc::plan_allreduce(call, cc::detail::machine_profile(), o);
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  auto r = cc::allreduce(*other, in.data(), out.data(), MPI_COMM_WORLD);
  expect_failed_alike(r.status(), "a plan for another size", ErrorCode::invalid_argument);
  EXPECT_NE(r.status().message().find("made for " + std::to_string(p + 1) + " ranks"),
            std::string::npos)
      << r.status().to_string();
  call.ranks = p;
  auto reduce_plan = cc::plan_reduce(call, cc::detail::machine_profile(), o);
  ASSERT_TRUE(reduce_plan.ok()) << reduce_plan.status().to_string();
  auto w = cc::allreduce(*reduce_plan, in.data(), out.data(), MPI_COMM_WORLD);
  expect_failed_alike(w.status(), "a plan of reduce", ErrorCode::invalid_argument);
  // A plan that cannot be made fails by itself: the algorithm does not serve the operation.
  auto bad = cc::plan_reduce_scatter_block(
      call, cc::detail::machine_profile(),
      options(Algorithm::PlainBinomial, "none", ErrorBound::lossless()));
  EXPECT_EQ(bad.status().code(), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace commpress::testing::comm
