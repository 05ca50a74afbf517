// The cost formulas against values computed by hand from the thesis' equations, on a
// profile simple enough to follow: one line for every message size, round codec rates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "commpress/model.hpp"

namespace {

using namespace commpress::model;

constexpr double kAlpha = 1e-5, kBeta = 1e-9, kGamma = 2e-10;
constexpr double kC = 1e9, kD = 2e9, kH = 4e9, kHr = 3e9;
constexpr double MiB = 1 << 20;

MachineProfile plain() {
  MachineProfile m;
  m.network.eager = m.network.rendezvous = {kAlpha, kBeta};
  m.network.switch_bytes = 0;
  m.gamma = kGamma;
  m.codecs = {{"szp", commpress::codec::Dtype::f32, kC, kD, kH, kHr, 0, 4}};
  return m;
}

Scenario scenario(Operation op, double bytes, int p, double ratio) {
  Scenario s;
  s.op = op;
  s.bytes = bytes;
  s.ranks = p;
  s.chunk_bytes = 1024 * MiB;  // one chunk: the thesis' unchunked formulas
  s.ratio = RatioCurve::constant(ratio);
  return s;
}

// Every collective commpress runs agrees its arguments first (38 int64), a compressed one its
// outcome at the end too (16 bytes): each one small allreduce as MPI runs it, recursive
// doubling for so few bytes (a non-power of two folded in and out), here with every step on
// the network.
double small_allreduce(int p, double bytes, double alpha, double beta) {
  const double msg = alpha + bytes * beta, sum = bytes * kGamma;
  int p2 = 1;
  while (2 * p2 <= p) p2 *= 2;
  double t = p > p2 ? 2 * msg + sum : 0;
  for (int dist = 1; dist < p2; dist *= 2) t += msg + sum;
  return t;
}
constexpr double kArguments = 42 * 8, kVerdict = 16;
double arguments(int p) { return small_allreduce(p, kArguments, kAlpha, kBeta); }
double agreements(int p, double alpha = kAlpha, double beta = kBeta) {
  return small_allreduce(p, kArguments, alpha, beta) + small_allreduce(p, kVerdict, alpha, beta);
}

// The same on two nodes of 4 ranks (intra-node link 1 us + 0.1 ns/B): partners 1 and 2 away
// inside a node, 4 away across it with all 4 ranks of a node sending at once.
double small_allreduce_two_nodes_of_4(double b) {
  return 2 * (1e-6 + b * 1e-10) + (kAlpha + b * kBeta + 3 * b * kBeta) + 3 * b * kGamma;
}
double agreements_two_nodes_of_4() {
  return small_allreduce_two_nodes_of_4(kArguments) + small_allreduce_two_nodes_of_4(kVerdict);
}

double predict_szp(Algorithm a, const Scenario& s) {
  const MachineProfile m = plain();
  return predict(m, m.rates("szp", commpress::codec::Dtype::f32), a, s);
}

TEST(ModelCost, AllgatherRingIsCColl) {
  const double b = 4 * MiB, r = 4;
  const int p = 4;
  // (p - 1)(alpha + (b / r) beta + d_B) + c_B
  const double expect = (p - 1) * (kAlpha + b / r * kBeta + b / kD) + b / kC + agreements(p);
  EXPECT_NEAR(predict_szp(Algorithm::Ring, scenario(Operation::allgather, b, p, r)), expect, 1e-12);
  // MPI's best of ring, (p - 1)(alpha + b beta), and Bruck, 2 alpha + (p - 1) b beta at p = 4
  EXPECT_NEAR(predict_szp(Algorithm::Mpi, scenario(Operation::allgather, b, p, r)),
              2 * kAlpha + (p - 1) * b * kBeta, 1e-12);
}

TEST(ModelCost, ReduceScatterRings) {
  const double b = 2 * MiB, r = 5;  // each rank's block; the vector is p * b
  const int p = 4;
  const Scenario s = scenario(Operation::reduce_scatter, b, p, r);
  const double step = kAlpha + b / r * kBeta;
  // DOC (5.4): (p - 1){c_B + d_B + B gamma + alpha + (B / r) beta}
  EXPECT_NEAR(predict_szp(Algorithm::DocRing, s),
              (p - 1) * (b / kC + b / kD + b * kGamma + step) + agreements(p), 1e-12);
  // hZCCL (5.5): (p - 1){h_B + alpha + (B / r) beta} + p c_B + d_B
  EXPECT_NEAR(predict_szp(Algorithm::HomomorphicRing, s),
              (p - 1) * (b / kH + step) + p * b / kC + b / kD + agreements(p), 1e-12);
  // HomComp_F (6.2): (p - 1){h_B + alpha + (B / r) beta} + c_B + d_B
  EXPECT_NEAR(predict_szp(Algorithm::FusedRing, s),
              (p - 1) * (b / kHr + step) + b / kC + b / kD + agreements(p), 1e-12);
}

TEST(ModelCost, AllreduceIsReduceScatterThenAllgatherOfFrames) {
  const double n = 8 * MiB, r = 6;
  const int p = 4;
  const double b = n / p, step = kAlpha + b / r * kBeta;
  const Scenario s = scenario(Operation::allreduce, n, p, r);
  // Fused ring reduce-scatter without the final decode, then the frames circulate and every
  // rank decodes all p blocks.
  const double expect =
      (p - 1) * (b / kHr + step) + b / kC + (p - 1) * step + p * b / kD + agreements(p);
  EXPECT_NEAR(predict_szp(Algorithm::FusedRing, s), expect, 1e-12);
  // Recursive doubling (ghZCCL): c + log2 p {h + alpha + (n / r) beta} + d
  EXPECT_NEAR(predict_szp(Algorithm::HomomorphicRecursiveDoubling, s),
              n / kC + 2 * (n / kH + kAlpha + n / r * kBeta) + n / kD + agreements(p), 1e-12);
}

TEST(ModelCost, RecursiveDoublingFoldsNonPowersOfTwo) {
  const double n = 8 * MiB, r = 6;
  const double hop = n / kH + kAlpha + n / r * kBeta;
  // p = 6: 4 in the butterfly (2 steps) plus folding in (one hop) and out (one transfer).
  EXPECT_NEAR(predict_szp(Algorithm::HomomorphicRecursiveDoubling,
                          scenario(Operation::allreduce, n, 6, r)),
              n / kC + 2 * hop + hop + (kAlpha + n / r * kBeta) + n / kD + agreements(6), 1e-12);
}

TEST(ModelCost, ButterflyStepsCrossingNodesShareTheNodesLink) {
  const double n = 8 * MiB, r = 4, w = n / r;
  const int p = 8;
  Scenario s = scenario(Operation::allreduce, n, p, r);
  s.ranks_per_node = 4;  // two nodes of 4 ranks, placed node by node
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  const CodecRates* rates = m.rates("szp", commpress::codec::Dtype::f32);
  // Partners 1 and 2 apart stay inside a node; 4 apart, all 4 ranks of a node send off it at
  // once and each waits for the other 3 on its link.
  const double inside = 1e-6 + w * 1e-10, across = kAlpha + w * kBeta + 3 * w * kBeta;
  EXPECT_NEAR(predict(m, rates, Algorithm::HomomorphicRecursiveDoubling, s),
              n / kC + 2 * (n / kH + inside) + (n / kH + across) + n / kD +
                  agreements_two_nodes_of_4(),
              1e-12);
  // Without nodes every step is one message on the network, as before.
  s.ranks_per_node = 1;
  EXPECT_NEAR(predict(m, rates, Algorithm::HomomorphicRecursiveDoubling, s),
              n / kC + 3 * (n / kH + kAlpha + w * kBeta) + n / kD + agreements(p), 1e-12);
}

TEST(ModelCost, BinomialTreeHopsInsideANodeUseItsLink) {
  const double n = 4 * MiB;
  Scenario s = scenario(Operation::bcast, n, 8, 1);
  s.ranks_per_node = 4;
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  // The root's children 4, 2 and 1 away: one across the nodes (one rank of a node sends at a
  // time in a tree), two inside; after the argument agreement that commpress's algorithms make.
  EXPECT_NEAR(predict(m, nullptr, Algorithm::PlainBinomial, s),
              (kAlpha + n * kBeta) + 2 * (1e-6 + n * 1e-10) +
                  small_allreduce_two_nodes_of_4(kArguments),
              1e-12);
  s.ranks_per_node = 1;
  EXPECT_NEAR(predict(m, nullptr, Algorithm::PlainBinomial, s),
              3 * (kAlpha + n * kBeta) + arguments(8), 1e-12);
}

TEST(ModelCost, MpiAllreduceIsTheAlgorithmOpenMpisTableRuns) {
  // 64 MiB on 4 ranks: Rabenseifner (recursive halving, then doubling).
  double n = 64 * MiB;
  const double halving = 2 * (kAlpha + n / 2 * kBeta) + 2 * (kAlpha + n / 4 * kBeta) +
                         (n / 2 + n / 4) * kGamma;
  EXPECT_NEAR(predict_szp(Algorithm::Mpi, scenario(Operation::allreduce, n, 4, 1)), halving, 1e-12);
  // 12000 bytes on 3 ranks: the table runs recursive doubling (the third rank folded in and
  // out, three messages of the whole vector), though the ring would be faster here.
  n = 12000;
  const int p = 3;
  const double b = n / p;
  const double ring = 2 * (p - 1) * (kAlpha + b * kBeta) + (p - 1) * b * kGamma;
  const double doubling = 3 * (kAlpha + n * kBeta) + 2 * n * kGamma;
  ASSERT_LT(ring, doubling);
  EXPECT_NEAR(predict_szp(Algorithm::Mpi, scenario(Operation::allreduce, n, p, 1)), doubling,
              1e-12);
}

// Open MPI's table picks its ring for the agreements' two integers on 16 to 63 ranks, but a
// ring needs an element a rank: with fewer, Open MPI runs recursive doubling (4 steps on 16
// ranks), not 2 (p - 1) steps of a ring, which once priced every agreement of a 16-rank grid
// line several times what the simulation took (bench/results/scale.md).
TEST(ModelCost, MpiAllreduceOfFewerElementsThanRanksIsNoRing) {
  for (int p : {16, 31, 32, 63}) {
    SCOPED_TRACE(p);
    EXPECT_NEAR(predict_szp(Algorithm::Mpi, scenario(Operation::allreduce, kVerdict, p, 1)),
                small_allreduce(p, kVerdict, kAlpha, kBeta), 1e-12);
  }
  // An element a rank or more still goes round the ring (6000 bytes on 3 ranks: the table's).
  const double n = 6000, b = n / 3;
  EXPECT_NEAR(predict_szp(Algorithm::Mpi, scenario(Operation::allreduce, n, 3, 1)),
              4 * (kAlpha + b * kBeta) + 2 * b * kGamma, 1e-12);
}

TEST(ModelCost, MpiRabenseifnerHalvesWithTheNearestPartnerFirst) {
  const double n = 8 * MiB;
  Scenario s = scenario(Operation::allreduce, n, 8, 1);
  s.ranks_per_node = 4;  // two nodes of 4 ranks, placed node by node
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  auto inside = [](double x) { return 1e-6 + x * 1e-10; };
  // The halves (partner 1 away) and quarters (2 away) stay inside a node; the eighths cross,
  // all 4 ranks of a node at once. The allgather retraces the same steps.
  const double across = kAlpha + n / 8 * kBeta + 3 * n / 8 * kBeta;
  const double halving = inside(n / 2) + inside(n / 4) + across + (n / 2 + n / 4 + n / 8) * kGamma;
  const double doubling = inside(n / 2) + inside(n / 4) + across;
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s), halving + doubling, 1e-12);
}

// On a network of switches (a fat-tree's leaves) partners under one switch cross on its link.
// 32 ranks on 8 nodes of 4, 4 nodes a switch, 8 MiB: Rabenseifner's partners 4 and 8 ranks
// away (1 and 2 nodes) share a switch, those 16 away (4 nodes) do not, in the halving and the
// doubling alike. A line whose members sit on every second node (node_stride 2) has only the
// partners 4 ranks away (2 nodes) under one.
TEST(ModelCost, MpiButterflyPartnersUnderOneSwitchCrossOnItsLink) {
  Scenario s = scenario(Operation::allreduce, 8 * MiB, 32, 1);
  s.ranks_per_node = 4;
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  const double one_network = predict(m, nullptr, Algorithm::Mpi, s);
  const double saved = 3e-6;
  m.switch_link = m.network;
  m.switch_link->eager.alpha -= saved;
  m.switch_link->rendezvous.alpha -= saved;
  m.switch_nodes = 4;
  EXPECT_NEAR(one_network - predict(m, nullptr, Algorithm::Mpi, s), 2 * 2 * saved, 1e-12);
  s.node_stride = 2;
  EXPECT_NEAR(one_network - predict(m, nullptr, Algorithm::Mpi, s), 2 * saved, 1e-12);
  m.switch_nodes = 0;  // one network after all
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s), one_network, 1e-12);
}

TEST(ModelCost, MpiAllgatherNeighbourExchangeCrossesNodesEveryOtherStep) {
  // 64 ranks, 16 KiB blocks: Open MPI's table runs the neighbour exchange, 32 steps.
  const double b = 16 * 1024;
  Scenario s = scenario(Operation::allgather, b, 64, 1);
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  auto inside = [](double x) { return 1e-6 + x * 1e-10; };
  auto network = [](double x) { return kAlpha + x * kBeta; };
  // Nodes of 8: the first step and the 15 pairing (even, even + 1) stay inside a node; the
  // 16 pairing (odd, odd + 1) cross each node boundary, a node's first and last rank both
  // sending off it (each waits for the other's bytes too).
  s.ranks_per_node = 8;
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s),
              inside(b) + 15 * inside(2 * b) + 16 * (network(2 * b) + 2 * b * kBeta), 1e-12);
  // Without nodes every step is a network message.
  s.ranks_per_node = 1;
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s), network(b) + 31 * network(2 * b), 1e-12);
}

TEST(ModelCost, MpiBcastIsTheKnomialTreeOpenMpisTableRunsAt64Ranks) {
  // 1 MiB to 64 ranks in nodes of 8: the table runs the radix-4 k-nomial tree. The root
  // sends to ranks 16, 32 and 48 at once (three nodes, one link); then each of the four to
  // +4 (its own node) and +8, +12 (two other nodes); then each of the sixteen to +1, +2, +3,
  // all inside its node, two senders a node.
  const double n = MiB;
  Scenario s = scenario(Operation::bcast, n, 64, 1);
  s.ranks_per_node = 8;
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  auto inside = [](double x) { return 1e-6 + x * 1e-10; };
  auto network = [](double x) { return kAlpha + x * kBeta; };
  const double knomial = (network(n) + 2 * n * kBeta) +
                         std::max(network(n) + n * kBeta, inside(n)) + inside(n);
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s), knomial, 1e-12);
  // 8 ranks (under 16): the table sends from the root to each in turn (linear).
  s = scenario(Operation::bcast, n, 8, 1);
  EXPECT_NEAR(predict(m, nullptr, Algorithm::Mpi, s), network(7 * n), 1e-12);
}

TEST(ModelCost, PointToPointPipelinesChunks) {
  const double n = 8 * MiB, chunk = MiB, r = 4;
  Scenario s = scenario(Operation::p2p, n, 2, r);
  s.chunk_bytes = chunk;
  const double c = chunk / kC, w = kAlpha + chunk / r * kBeta, d = chunk / kD;
  const double header = kAlpha + 80 * kBeta;
  // Fill (one chunk through every stage) plus 7 more at the pace of the slowest stage.
  EXPECT_NEAR(predict_szp(Algorithm::Direct, s), header + c + w + d + 7 * std::max({c, w, d}),
              1e-12);
  EXPECT_NEAR(predict_szp(Algorithm::Mpi, s), kAlpha + n * kBeta, 1e-12);
}

TEST(ModelCost, BinomialBcastCompressesOnceDecodesOnce) {
  const double n = 4 * MiB, r = 8, w = n / r;
  // p = 8, one chunk: the root sends its frame to its 3 children at once (each waits for the
  // others' bytes on its link), its farthest child to 2 at once, that one's to 1: the
  // deepest rank is 3 hops away.
  const double path = (kAlpha + 3 * w * kBeta) + (kAlpha + 2 * w * kBeta) + (kAlpha + w * kBeta);
  Scenario s = scenario(Operation::bcast, n, 8, r);
  EXPECT_NEAR(predict_szp(Algorithm::Binomial, s), n / kC + path + n / kD + agreements(8), 1e-12);
  // Two nodes of 4 (intra-node link 1 us + 0.1 ns/B): the root's one child on the other node
  // has its link alone; the hops below it stay inside that node.
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  s.ranks_per_node = 4;
  EXPECT_NEAR(predict(m, m.rates("szp", commpress::codec::Dtype::f32), Algorithm::Binomial, s),
              n / kC + (kAlpha + w * kBeta) + 2 * (1e-6 + w * 1e-10) + n / kD +
                  agreements_two_nodes_of_4(),
              1e-12);
}

// A shaped link passes one small message at burst speed (eager beta 10x the sustained
// rate), but chunks streamed back to back move at the sustained rate: a pipelined bcast and
// a chunked point-to-point pay the large-message beta per chunk, a lone message its own.
TEST(ModelCost, ChunkStreamsMoveAtTheSustainedRate) {
  MachineProfile m = plain();
  const double alpha = kAlpha / 100, beta = kBeta / 10;  // small messages alone
  m.network.eager = {alpha, beta};
  m.network.switch_bytes = MiB;
  const CodecRates* rates = m.rates("szp", commpress::codec::Dtype::f32);
  const double n = 4 * MiB, r = 8, x = 64 * 1024;  // 64 chunks of 8 KiB frames
  Scenario s = scenario(Operation::bcast, n, 4, r);
  s.chunk_bytes = x;
  // Each chunk's latency overlaps the stream's transfer: the slower of the two counts.
  const double hop = std::max(alpha + x / r * beta, x / r * kBeta);
  ASSERT_GT(x / r * kBeta, 2 * (alpha + x / r * beta));  // the case this is about
  const double c = x / kC, d = x / kD, root = 2 * hop;
  EXPECT_NEAR(predict(m, rates, Algorithm::Binomial, s),
              c + root + d + 63 * std::max({c, root, d}) + hop + agreements(4, alpha, beta), 1e-12);
  s.op = Operation::p2p;
  const double header = alpha + 80 * beta;
  EXPECT_NEAR(predict(m, rates, Algorithm::Direct, s),
              header + c + hop + d + 63 * std::max({c, hop, d}), 1e-12);
  s.bytes = s.chunk_bytes = x;  // one chunk alone: the burst applies
  EXPECT_NEAR(predict(m, rates, Algorithm::Direct, s), header + c + alpha + x / r * beta + d,
              1e-12);
}

TEST(ModelCost, ScatterAndGather) {
  const double b = MiB, r = 4;
  const int p = 8;
  const double tree = 3 * kAlpha + (p - 1) * b / r * kBeta;
  EXPECT_NEAR(predict_szp(Algorithm::Binomial, scenario(Operation::scatter, b, p, r)),
              (p - 1) * b / kC + tree + b / kD + agreements(p), 1e-12);
  EXPECT_NEAR(predict_szp(Algorithm::Binomial, scenario(Operation::gather, b, p, r)),
              b / kC + tree + (p - 1) * b / kD + agreements(p), 1e-12);
}

TEST(ModelCost, OneRankCostsNothingAndUnofferedIsInfinite) {
  EXPECT_EQ(predict_szp(Algorithm::FusedRing, scenario(Operation::allreduce, MiB, 1, 4)), 0);
  EXPECT_TRUE(std::isinf(predict_szp(Algorithm::Ring, scenario(Operation::bcast, MiB, 4, 4))));
  EXPECT_TRUE(std::isinf(predict(plain(), nullptr, Algorithm::Ring,
                                 scenario(Operation::allgather, MiB, 4, 4))));
}

TEST(ModelCost, HierarchicalReducesRawInsideNodes) {
  const double n = 16 * MiB, r = 8;
  Scenario s = scenario(Operation::allreduce, n, 8, r);
  s.ranks_per_node = 4;
  MachineProfile m = plain();
  m.intra_node = Link{{1e-6, 1e-10}, {1e-6, 1e-10}, 0};
  const double part = n / 4;  // each rank's node-block
  const double intra = 3 * (1e-6 + part * 1e-10 + part * kGamma) + 3 * (1e-6 + part * 1e-10);
  // Across the 2 nodes: homomorphic ring allreduce of the node-block, the 4 local ranks' rings
  // at once through the node's link (each message waits for the other 3 rings' bytes).
  const double b = part / 2, step = kAlpha + 4 * b / r * kBeta;
  const double cross = (b / kH + step) + 2 * b / kC + step + 2 * b / kD;
  EXPECT_NEAR(predict(m, m.rates("szp", commpress::codec::Dtype::f32), Algorithm::Hierarchical, s),
              intra + cross + agreements_two_nodes_of_4(), 1e-12);
}

TEST(ModelCost, RatioCurveDropsWithFinerBounds) {
  RatioCurve c;
  c.at_bound = 8;
  c.elem_size = 4;
  EXPECT_DOUBLE_EQ(c.at(1), 8);
  // Unsampled: one more bit per element per halving (4 bits -> 6 bits at k = 4).
  EXPECT_NEAR(c.at(4), 32.0 / 6.0, 1e-12);
  c.at_fine = 4;  // sampled at bound / 16: 8 bits
  c.fine_divisor = 16;
  EXPECT_NEAR(c.at(16), 4, 1e-12);
  EXPECT_NEAR(c.at(4), 32.0 / 6.0, 1e-12);  // halfway in log k
  EXPECT_GT(c.at(2), c.at(3));
  EXPECT_DOUBLE_EQ(RatioCurve::constant(3).at(100), 3);
}

}  // namespace
