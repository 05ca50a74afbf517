// The distributed multiply's cost models: formulas against hand-computed values, the
// compressed-Cannon threshold against the models' own predictions, monotonicity, memory, and
// the rules of Auto's choice.
#include "support/dev_box_profile.hpp"
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "comm/profile_io.hpp"
#include "commpress/gemm_model.hpp"
#include "model/cost_terms.hpp"
#include "model/gemm_terms.hpp"

namespace {

using namespace commpress::model;

Link line(double alpha, double beta) {
  Link l;
  l.eager = l.rendezvous = {alpha, beta};
  l.switch_bytes = 1e30;
  return l;
}

GemmCodec codec(double ratio, double c, double d) {
  GemmCodec z;
  z.enabled = true;
  z.ratio = ratio;
  z.compress = c;
  z.decompress = d;
  return z;
}

GemmScenario square(int64_t n, GemmGrid g, double alpha, double beta, double flops) {
  GemmScenario s;
  s.m = s.n = s.k = n;
  s.elem_size = 8;
  s.grid = g;
  s.link = line(alpha, beta);
  s.flops = flops;
  s.overlap = false;
  return s;
}

// --- closed forms ---------------------------------------------------------------------------

TEST(GemmModel, CompressedCannonClosedFormByHand) {
  // p = 16 (q = 4), A = 8e6 bytes: 4*4*1e-6 + (2*8e6/4) * (2e-9/4 + 1/(1e9*4) + 1/2e9)
  //   = 16e-6 + 4e6 * 1.25e-9 = 5.016e-3
  EXPECT_NEAR(compressed_cannon_time(16, 8e6, {1e-6, 1e-9}, 4, 1e9, 2e9), 5.016e-3, 1e-12);
  // Raw (r = 1, free codec): 16e-6 + 4e6 * 2e-9 = 8.016e-3
  EXPECT_NEAR(compressed_cannon_time(16, 8e6, {1e-6, 1e-9}, 1, INFINITY, INFINITY), 8.016e-3,
              1e-12);
}

TEST(GemmModel, ThresholdByHand) {
  // tau = 4/3 * (2e9 + 1e9*4) / (2 * 2e9 * 1e9 * 4) = 4/3 * 0.375e-9 = 0.5e-9
  EXPECT_NEAR(compressed_cannon_threshold(16, 4, 1e9, 2e9), 0.5e-9, 1e-21);
  // p = 4 (q = 2), r = 2: 2 * (1e9 + 2e9) / (2 * 1e9 * 1e9 * 2) = 1.5e-9
  EXPECT_NEAR(compressed_cannon_threshold(4, 2, 1e9, 1e9), 1.5e-9, 1e-21);
  EXPECT_TRUE(std::isinf(compressed_cannon_threshold(16, 1, 1e9, 1e9)));  // nothing saved
  EXPECT_TRUE(std::isinf(compressed_cannon_threshold(16, 0.9, 1e9, 1e9)));
}

TEST(GemmModel, CannonModelIsTheClosedFormWithADirectSkew) {
  // 1000^3 f64 on 4 x 4 (blocks of 250 divide evenly), no overlap. The closed form charges
  // the skew as q hop-by-hop shifts, 2q shifts of two messages each, 2 (alpha + x beta / r);
  // the runner skews straight to each block's place, one shift, so the model has q = 4 shifts,
  // and posts a shift's two messages together, which overlaps their latencies:
  // alpha + 2 x beta / r. Plus the products 2 * 1000^3 / (16 * 1e10) = 0.0125 s.
  GemmScenario s = square(1000, {4, 4, 1}, 1e-6, 1e-9, 1e10);
  const double A = 1000.0 * 1000 * 8, block = A / 16;
  auto closed_shift = [&](double r) { return 2 * (1e-6 + block / r * 1e-9); };
  auto model_shift = [&](double r) { return 1e-6 + 2 * block / r * 1e-9; };
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s),
              compressed_cannon_time(16, A, {1e-6, 1e-9}, 1, INFINITY, INFINITY) -
                  8 * closed_shift(1) + 4 * model_shift(1) + 0.0125,
              1e-12);
  s.codec = codec(4, 1e9, 2e9);
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s),
              compressed_cannon_time(16, A, {1e-6, 1e-9}, 4, 1e9, 2e9) - 8 * closed_shift(4) +
                  4 * model_shift(4) + 0.0125,
              1e-12);
  // One layer of Cannon25D is Cannon.
  EXPECT_DOUBLE_EQ(gemm_time(GemmAlgorithm::Cannon25D, s), gemm_time(GemmAlgorithm::Cannon, s));
}

TEST(GemmModel, CannonOverlapTakesTheLongerOfShiftAndProductPerStep) {
  // 2 x 2, 512^3 f64: blocks 256 x 256 = 524288 B; a shift is 1e-6 + 2 * 524288e-9 (the two
  // messages in flight at once). The skew (one shift), the first product beside or after the
  // one shift between them, the last.
  GemmScenario s = square(512, {2, 2, 1}, 1e-6, 1e-9, 1e10);
  const double shift = 1e-6 + 2 * 524288e-9;
  const double product = 2.0 * 256 * 256 * 256 / 1e10;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s), shift + (shift + product) + product, 1e-12);
  s.overlap = true;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s), shift + std::max(shift, product) + product,
              1e-12);
}

// --- placement: grid lines inside a node or across nodes -----------------------------------

TEST(GemmModel, CannonOnNodesOfARowShiftsTheRowInsideAndTheColumnOverASharedLink) {
  // 8 x 8 ranks on 8 nodes of 8: a grid row is one node (A's shift on the node's link), a
  // column crosses the 8 nodes, and all 8 ranks of a node send their B block at once through
  // its one link: alpha + 8 * bytes * beta. The two shifts run side by side.
  GemmScenario s = square(1024, {8, 8, 1}, 1e-5, 1e-9, INFINITY);
  s.node_size = 8;
  s.node_link = line(1e-7, 1e-11);
  const double block = 128.0 * 128 * 8;
  const double across = 1e-5 + 8 * block * 1e-9;
  ASSERT_GT(across, 1e-7 + block * 1e-11);
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s), 8 * across, 1e-12);  // skew + 7 shifts
  // Unknown nodes: every message on the network, unshared; a shift's two messages in flight
  // on it at once.
  s.node_size = 0;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s), 8 * (1e-5 + 2 * block * 1e-9), 1e-12);
  // One rank a node: the same (nothing shares, nothing stays inside).
  s.node_size = 1;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Cannon, s), 8 * (1e-5 + 2 * block * 1e-9), 1e-12);
}

TEST(GemmModel, BlockingSummaBroadcastsAsOpenMpisTableOnTheLinesNodes) {
  // 4 x 4 ranks on nodes of 8: a row (4 consecutive ranks) is inside a node; a column (ranks
  // 4 apart) has 2 members on each of 2 nodes, and the node's 8 / 2 = 4 columns cross at once.
  // MPI_Bcast of 128 KiB over 4 ranks is Open MPI's linear entry: the root sends every member
  // its copy. Its two copies off the node queue on the node's link (shared 4 ways, so each
  // waits for the other's bytes too); the copy inside goes beside them.
  GemmScenario s = square(512, {4, 4, 1}, 1e-5, 1e-9, INFINITY);
  s.panel = 128;  // 4 panels; pieces of 128 x 128 f64
  s.node_size = 8;
  s.node_link = line(1e-7, 1e-11);
  const double piece = 128.0 * 128 * 8;
  auto in = [](double x) { return 1e-7 + x * 1e-11; };
  const double row = in(3 * piece);
  const double col = std::max(1e-5 + 2 * piece * 4e-9, in(piece));
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 4 * std::max(row, col), 1e-12);
  // The whole grid on one node: everything on the node's link.
  s.node_size = 16;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 4 * (row + row), 1e-12);
  // pdgemm's broadcasts (BLACS's default topology is MPI_Bcast) are priced alike.
  EXPECT_NEAR(gemm_time(GemmAlgorithm::ScaLapack, s), 4 * (row + row), 1e-12);
}

TEST(GemmModel, SummaLookAheadPricesTheTreeMpiIbcastBuilds) {
  // With look-ahead the pieces go by MPI_Ibcast, and Open MPI's libnbc builds a flat tree on
  // lines of up to 4 ranks: the root's 3 copies are in flight at once (one latency, their
  // bytes queued on its link). MPI_Bcast's table picks the same linear send for 128 KiB
  // over 4 ranks, but blocking the row's and the column's broadcasts go one after the other
  // every panel. Nodes of one rank; network only.
  GemmScenario s = square(512, {4, 4, 1}, 1e-5, 1e-9, INFINITY);
  s.panel = 128;  // 4 panels; pieces of 128 x 128 f64
  const double piece = 128.0 * 128 * 8;
  auto msg = [](double x) { return 1e-5 + x * 1e-9; };
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 4 * 2 * msg(3 * piece), 1e-12);
  s.overlap = true;
  // A panel's row and column roots are different ranks but the diagonal one: the loop goes at
  // one tree's pace, and the first panel's diagonal sends both trees through its link.
  const double flat = 1e-5 + 3 * piece * 1e-9;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), (2 + 3) * flat, 1e-12);
  // Compressed, each piece's length goes first by a blocking MPI_Bcast (8 bytes over 4 ranks:
  // the binary tree, 2 levels of 2 children), the row's then the column's on every rank: the
  // loop's pace is a frame's flat tree and both lengths.
  s.codec = codec(4, INFINITY, INFINITY);
  const double length = 2 * 2 * msg(8), frames = 1e-5 + 3 * s.codec.wire(piece) * 1e-9;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s),
              2 * (length + frames) + 3 * (frames + 2 * length), 1e-12);
  s.codec = GemmCodec{};
  // Lines of 8: a binomial tree of whole messages, 3 levels.
  s = square(1024, {8, 8, 1}, 1e-5, 1e-9, INFINITY);
  s.panel = 128;  // 8 panels, pieces of 128 x 128 f64 again
  s.overlap = true;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 8 * 2 * 3 * msg(piece), 1e-12);
  // Compressed: the frame's length by MPI_Bcast (8 bytes over 8 ranks: Open MPI's binary
  // tree, 3 levels of 2 children), then the frame by libnbc's binomial tree.
  s.codec = codec(4, INFINITY, INFINITY);
  const double frame = 3 * 2 * msg(8) + 3 * msg(s.codec.wire(piece));
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 8 * 2 * frame, 1e-12);
}

TEST(GemmModel, TheCallsAgreementsAreSmallAllreducesOverTheGrid) {
  // 8 x 8 on nodes of 8 (a grid row a node): an allreduce of a few bytes over the grid is
  // Open MPI's recursive doubling, 3 steps inside a node and 3 between nodes, where the node's
  // 8 ranks send off it at once (the collectives' outcome agreement is priced alike). A
  // column's members are one a node: 3 steps on the network, where the node's 8 columns
  // agree at once (their bytes share its link, as the crossing steps'). The call agrees its
  // arguments, its plan and its outcome; a lossy codec adds C's bound (two allreduces over the
  // grid, one along a row, inside the node, one along a column, across the nodes), a REL
  // bound the two operands' ranges; 2.5D Cannon's layers agree their outcome too.
  GemmScenario s = square(1024, {8, 8, 1}, 1e-5, 1e-9, 1e10);
  s.node_size = 8;
  s.node_link = line(1e-7, 1e-11);
  const double net = 1e-5 + 16e-9, node = 1e-7 + 16e-11, crossing = net + 7 * 16e-9;
  const double grid = 3 * crossing + 3 * node, row = 3 * node, col = 3 * crossing;
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Summa, s), 3 * grid, 1e-15);
  s.codec = codec(4, 1e9, 1e9);  // lossless: C's bound is exact, nothing more to agree
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Cannon, s), 3 * grid, 1e-15);
  s.codec.lossy = true;
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Cannon, s), 5 * grid + row + col, 1e-15);
  s.codec.relative = true;
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Cannon, s), 7 * grid + row + col, 1e-15);
  EXPECT_EQ(gemm_agreements_time(GemmAlgorithm::ScaLapack, s), 0);  // pdgemm agrees nothing
  s.grid = {4, 4, 4};
  s.codec = GemmCodec{};
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Cannon25D, s), 4 * grid, 1e-15);
  EXPECT_NEAR(gemm_agreements_time(GemmAlgorithm::Summa25D, s), 3 * grid, 1e-15);
  // Auto weighs them: the choice's seconds are the algorithm's and the agreements'.
  const GemmGrid only[] = {{8, 8, 1}};
  const GemmAlgorithm summa[] = {GemmAlgorithm::Summa};
  const GemmCodec none[] = {GemmCodec{}};
  const GemmChoice c = choose_gemm(s, only, summa, none);
  s.grid = only[0];
  EXPECT_NEAR(c.seconds, gemm_time(GemmAlgorithm::Summa, s) + 3 * grid, 1e-12);
}

TEST(GemmModel, LayersReplicateAlongFibersThatShareTheNodesLink) {
  // 2 x 2 x 2 on nodes of 4 (a layer a node): the fiber's two members are on two nodes and all
  // 4 ranks of a node replicate at once; compared with nodes of one rank, the replication's
  // bandwidth term is 4 times as large.
  GemmScenario s = square(512, {2, 2, 2}, 0, 1e-9, INFINITY);
  s.node_link = line(0, 0);
  s.node_size = 4;
  const double shared = gemm_time(GemmAlgorithm::Cannon25D, s);
  s.node_size = 1;
  const double alone = gemm_time(GemmAlgorithm::Cannon25D, s);
  // Layer blocks 256 x 256 f64 = 524288 B. Replication: A and B over the 2-member fiber; the
  // reduction of C over it (gamma 0): one message. Each layer's one step: the skew of A and B.
  const double blk = 524288;
  EXPECT_NEAR(alone, 3 * blk * 1e-9 + 2 * blk * 1e-9, 1e-12);
  EXPECT_NEAR(shared, 4 * 3 * blk * 1e-9, 1e-12);  // the skew stays inside the node
}

TEST(GemmModel, SummaByHand) {
  // 2 x 2, 512^3 f64, panels of 128 (4 of them): pieces 256 x 128 = 262144 B, a broadcast
  // over 2 ranks is one message: net = 2 (1e-6 + 262144e-9) per panel,
  // product = 2 * 256 * 256 * 128 / 1e10.
  GemmScenario s = square(512, {2, 2, 1}, 1e-6, 1e-9, 1e10);
  s.panel = 128;
  const double net = 2 * (1e-6 + 262144e-9), cpu = 2.0 * 256 * 256 * 128 / 1e10;
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), 4 * (net + cpu), 1e-12);
  s.overlap = true;  // look-ahead: the first panel exposed, then the slower side per panel
  EXPECT_NEAR(gemm_time(GemmAlgorithm::Summa, s), net + cpu + 3 * std::max(net, cpu), 1e-12);
}

TEST(GemmModel, SrummaByHand) {
  // 1 x 2 grid, 100^3 f64, every other rank remote. Rank (0,0) multiplies its own k half
  // (2*100*50*50/1e9 = 0.5 ms) and fetches A(:, 50:100) from rank (0,1): 100*50*8 = 40000 B.
  GemmScenario s = square(100, {1, 2, 1}, 1e-6, 1e-9, 1e9);
  s.overlap = true;
  SrummaCost c = srumma_cost(s);
  EXPECT_NEAR(c.comp, 1e-3, 1e-15);
  EXPECT_NEAR(c.comm, 41e-6, 1e-15);
  EXPECT_DOUBLE_EQ(c.omega, 0.0);       // the products hide every fetch
  EXPECT_DOUBLE_EQ(c.first_fetch, 0.0);  // behind the local half
  EXPECT_NEAR(c.seconds, 1e-3, 1e-15);
  // A slow link: the fetch (40 ms) dominates; only the remote half's product follows it.
  s.link = line(1e-6, 1e-6);
  c = srumma_cost(s);
  EXPECT_NEAR(c.comm, 0.040001, 1e-12);
  EXPECT_NEAR(c.omega, 1 - 1e-3 / 0.040001, 1e-12);
  EXPECT_NEAR(c.first_fetch, 0.040001 - 0.5e-3, 1e-12);
  EXPECT_NEAR(c.seconds, 0.040001 + 0.5e-3, 1e-12);
  EXPECT_DOUBLE_EQ(gemm_time(GemmAlgorithm::Srumma, s), c.seconds);
  s.overlap = false;
  EXPECT_NEAR(srumma_cost(s).seconds, 1e-3 + 0.040001, 1e-12);
  // One shared-memory domain: nothing travels, only the copy into the shared window.
  s.ranks_per_node = 2;
  s.gamma = 0;
  EXPECT_NEAR(srumma_cost(s).seconds, 1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(srumma_cost(s).comm, 0.0);
}

// --- the threshold against the models' predictions ----------------------------------------

TEST(GemmModel, CompressedCannonWinsExactlyAboveTwiceTheThreshold) {
  // The closed form (and its threshold) charges 2q shifts, the model q (a direct skew): the
  // bytes compression saves on a link are halved, so the model's break-even is at 2 tau.
  for (int q : {2, 3, 4, 8}) {
    for (double r : {1.2, 2.0, 6.8}) {
      const double c = 1.5e9, d = 4e9;
      const double tau = compressed_cannon_threshold(q * q, r, c, d);
      for (double f : {0.5, 0.9, 0.99, 1.01, 1.1, 1.98, 2.02, 10.0}) {
        GemmScenario s = square(240 * q, {q, q, 1}, 2e-6, f * tau, 5e10);
        const double raw = gemm_time(GemmAlgorithm::Cannon, s);
        s.codec = codec(r, c, d);
        const double packed = gemm_time(GemmAlgorithm::Cannon, s);
        EXPECT_EQ(packed < raw, f > 2) << "q " << q << " r " << r << " beta/tau " << f;
        // The closed form agrees on the sign.
        const double A = 240.0 * q * 240 * q * 8;
        EXPECT_EQ(compressed_cannon_time(q * q, A, {2e-6, f * tau}, r, c, d) <
                      compressed_cannon_time(q * q, A, {2e-6, f * tau}, 1, INFINITY, INFINITY),
                  f > 1);
      }
    }
  }
}

TEST(GemmModel, MoreBandwidthMakesCompressionPayLess) {
  const GemmCodec z = codec(3, 1e9, 3e9);
  for (GemmAlgorithm a : {GemmAlgorithm::Cannon, GemmAlgorithm::Summa}) {
    double last_gain = INFINITY;
    for (double beta : {1e-8, 3e-9, 1e-9, 3e-10, 1e-10, 3e-11}) {
      GemmScenario s = square(1024, {4, 4, 1}, 1e-6, beta, 5e10);
      const double raw = gemm_time(a, s);
      s.codec = z;
      const double gain = raw - gemm_time(a, s);
      EXPECT_LE(gain, last_gain) << "beta " << beta;
      last_gain = gain;
    }
    EXPECT_LT(last_gain, 0);  // on the fastest link compression loses
  }
}

// --- memory ---------------------------------------------------------------------------------

TEST(GemmModel, MemoryByHand) {
  // 2 x 2, 100^3 f64: blocks 50 x 50 = 20000 B.
  GemmScenario s = square(100, {2, 2, 1}, 1e-6, 1e-9, 1e10);
  // Two buffers per operand (in use, arriving) and a decoded work pair.
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Cannon, s), 2 * 40000 + 40000);
  // 2.5D: replicas arrive in those buffers; a partial C block per rank on top.
  s.grid = {2, 2, 2};
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Cannon25D, s), 120000 + 20000);
  // Frames at their bound replace the raw buffers.
  s.grid = {2, 2, 1};
  s.codec = codec(2, 1e9, 1e9);
  s.codec.bound_slope = 1.01;
  s.codec.bound_extra = 100;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Cannon, s), 2 * 2 * (20000 * 1.01 + 100) + 40000);
  // SUMMA with panels of 10: pieces 50 x 10 = 4000 B, one pair, two with look-ahead.
  s.codec = GemmCodec{};
  s.panel = 10;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Summa, s), 2 * 4000);
  s.overlap = true;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Summa, s), 2 * 2 * 4000);
  // 2.5D SUMMA: a partial C (20000) and the pieces of the layer's 5 of the 10 panels, half
  // of the A and B blocks (20000).
  s.grid = {2, 2, 2};
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Summa25D, s), 2 * 2 * 4000 + 20000 + 20000);
  // SRUMMA, every rank its own domain. On 2 x 2 a rank fetches one task (a 50 x 50 piece of
  // A and of B): one buffer suffices. On 1 x 4 it fetches three 100 x 25 pieces of A (B's
  // rows are all on its own grid row): two buffers, one without overlap.
  s.grid = {2, 2, 1};
  s.ranks_per_node = 1;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Srumma, s), 40000);
  s.grid = {1, 4, 1};
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Srumma, s), 2 * 20000);
  s.overlap = false;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Srumma, s), 20000);
  s.overlap = true;
  // One domain: only the shared copy of the own blocks (2 x 50 x 50).
  s.grid = {2, 2, 1};
  s.ranks_per_node = 4;
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Srumma, s), 40000);
  // Algorithms that do not run need nothing.
  s.grid = {2, 3, 1};
  EXPECT_DOUBLE_EQ(gemm_memory(GemmAlgorithm::Cannon, s), 0);
}

// --- choice ---------------------------------------------------------------------------------

TEST(GemmModel, GridsOverRanks) {
  auto has = [](const std::vector<GemmGrid>& v, GemmGrid g) {
    for (const GemmGrid& x : v)
      if (x.rows == g.rows && x.cols == g.cols && x.layers == g.layers) return true;
    return false;
  };
  const std::vector<GemmGrid> g8 = gemm_grids(8);
  EXPECT_EQ(g8.size(), 6u);  // 1x8, 2x4, 4x2, 8x1, 2x2x2 (8 / 2 = 4 is square), 1x1x8
  EXPECT_TRUE(has(g8, {2, 2, 2}));
  EXPECT_FALSE(has(g8, {1, 2, 4}));  // 8 / 4 = 2 is no square
  EXPECT_TRUE(has(gemm_grids(8), {1, 1, 8}));
  EXPECT_EQ(gemm_grids(8, 2).size(), 1u);
  EXPECT_EQ(gemm_grids(7).size(), 3u);  // 1x7, 7x1, 1x1x7
  EXPECT_TRUE(gemm_grids(0).empty());
}

TEST(GemmModel, WhichAlgorithmsRunWhere) {
  GemmScenario s;
  s.grid = {2, 3, 1};
  EXPECT_FALSE(gemm_runs(GemmAlgorithm::Cannon, s));
  EXPECT_TRUE(gemm_runs(GemmAlgorithm::Summa, s));
  EXPECT_TRUE(std::isinf(gemm_time(GemmAlgorithm::Cannon, s)));
  s.grid = {2, 2, 2};
  EXPECT_FALSE(gemm_runs(GemmAlgorithm::Cannon, s));
  EXPECT_FALSE(gemm_runs(GemmAlgorithm::Summa, s));
  EXPECT_TRUE(gemm_runs(GemmAlgorithm::Cannon25D, s));
  s.grid = {2, 2, 1};
  s.codec = codec(2, 1e9, 1e9);  // SRUMMA and ScaLAPACK move raw blocks only
  EXPECT_FALSE(gemm_runs(GemmAlgorithm::Srumma, s));
  EXPECT_FALSE(gemm_runs(GemmAlgorithm::ScaLapack, s));
  EXPECT_TRUE(gemm_runs(GemmAlgorithm::Cannon, s));
  for (const GemmGrid& g : {GemmGrid{2, 2, 1}, GemmGrid{2, 2, 2}, GemmGrid{1, 3, 1}})
    for (GemmAlgorithm a : auto_algorithms(g)) EXPECT_NE(a, GemmAlgorithm::ScaLapack);
}

TEST(GemmModel, CannonOnlyOnSquareGrids) {
  // Latency-bound (1-column panels, slow messages) with compression forced (no SRUMMA):
  // Cannon's few shifts beat SUMMA's many broadcasts on a square grid; a non-square grid of
  // as many ranks never gets Cannon.
  GemmScenario s = square(64, {4, 4, 1}, 1e-4, 1e-10, 1e10);
  s.panel = 1;
  s.overlap = true;
  const std::vector<GemmCodec> zstd = {codec(1.2, 1e9, 1e9)};
  const GemmGrid sq[] = {{4, 4, 1}}, wide[] = {{2, 8, 1}};
  GemmChoice c = choose_gemm(s, sq, {}, zstd);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.algorithm, GemmAlgorithm::Cannon);
  c = choose_gemm(s, wide, {}, zstd);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.algorithm, GemmAlgorithm::Summa);
}

TEST(GemmModel, AutoNeverPicksScaLapackEvenWhenItIsFastest) {
  // Forced-algorithm lists may include ScaLapack; Auto's (empty list) never does.
  GemmScenario s = square(256, {2, 2, 1}, 1e-6, 1e-9, 1e10);
  const std::vector<GemmCodec> none = {GemmCodec{}};
  const GemmGrid g[] = {{2, 2, 1}};
  const GemmAlgorithm only[] = {GemmAlgorithm::ScaLapack};
  EXPECT_EQ(choose_gemm(s, g, only, none).algorithm, GemmAlgorithm::ScaLapack);
  for (double beta : {1e-12, 1e-9, 1e-6}) {
    s.link = line(1e-6, beta);
    EXPECT_NE(choose_gemm(s, g, {}, none).algorithm, GemmAlgorithm::ScaLapack);
  }
}

TEST(GemmModel, MemoryCapForbidsReplication) {
  // SUMMA over 1024 ranks on a slow link: replication (2.5D) beats every 2-D grid; caps just
  // below each choice's memory step down through the replicated grids, each slower, to one
  // layer.
  GemmScenario s = square(16384, {1, 1, 1}, 1e-6, 1e-8, 1e10);
  s.overlap = true;
  const std::vector<GemmGrid> grids = gemm_grids(1024);
  const std::vector<GemmCodec> none = {GemmCodec{}};
  const GemmAlgorithm summas[] = {GemmAlgorithm::Summa, GemmAlgorithm::Summa25D};
  const GemmChoice free = choose_gemm(s, grids, summas, none);
  ASSERT_TRUE(free.found);
  EXPECT_GT(free.grid.layers, 1);
  EXPECT_EQ(free.algorithm, GemmAlgorithm::Summa25D);
  GemmChoice last = free;
  for (int step = 0; step < 8 && last.grid.layers > 1; ++step) {
    const GemmChoice capped = choose_gemm(s, grids, summas, none, last.memory - 1);
    ASSERT_TRUE(capped.found);
    EXPECT_LT(capped.memory, last.memory);
    EXPECT_GT(capped.seconds, last.seconds);
    last = capped;
  }
  EXPECT_EQ(last.grid.layers, 1);
}

TEST(GemmModel, AutoCompressesOnlyOnSlowLinks) {
  // Codec candidates raw and a 4x codec: on a fast link raw wins, on a slow one compression.
  const std::vector<GemmCodec> codecs = {GemmCodec{}, codec(4, 2e9, 4e9)};
  const GemmGrid g[] = {{3, 3, 1}};
  const GemmAlgorithm cannon[] = {GemmAlgorithm::Cannon};
  GemmScenario s = square(900, {3, 3, 1}, 1e-6, 1e-11, 5e10);
  EXPECT_EQ(choose_gemm(s, g, cannon, codecs).codec, 0);
  s.link = line(1e-6, 1e-8);
  EXPECT_EQ(choose_gemm(s, g, cannon, codecs).codec, 1);
}

TEST(GemmModel, DegenerateSizes) {
  GemmScenario s = square(0, {2, 2, 1}, 1e-6, 1e-9, 1e10);
  for (GemmAlgorithm a : {GemmAlgorithm::Cannon, GemmAlgorithm::Summa, GemmAlgorithm::Srumma})
    EXPECT_DOUBLE_EQ(gemm_time(a, s), 0.0);
  s.m = s.n = 10;  // k = 0: nothing to multiply or move
  EXPECT_DOUBLE_EQ(gemm_time(GemmAlgorithm::Summa, s), 0.0);
  // More ranks than rows: the model stays finite.
  s = square(3, {4, 4, 1}, 1e-6, 1e-9, 1e10);
  for (GemmAlgorithm a : {GemmAlgorithm::Cannon, GemmAlgorithm::Summa, GemmAlgorithm::Srumma})
    EXPECT_TRUE(std::isfinite(gemm_time(a, s)));
}

TEST(GemmModel, FlopRateFromProfileOrDefault) {
  MachineProfile m;
  EXPECT_DOUBLE_EQ(gemm_flop_rate(m, Dtype::f64), kDefaultGemmFlopsF64);
  EXPECT_DOUBLE_EQ(gemm_flop_rate(m, Dtype::f32), kDefaultGemmFlopsF32);
  m.gemm_flops_f64 = 1e9;
  EXPECT_DOUBLE_EQ(gemm_flop_rate(m, Dtype::f64), 1e9);
  // An unmeasured codec gets the default rates and no ratio: never predicted to pay.
  const GemmCodec z = gemm_codec(nullptr);
  EXPECT_TRUE(z.enabled);
  EXPECT_DOUBLE_EQ(z.ratio, 1.0);
  EXPECT_DOUBLE_EQ(z.compress, kDefaultGemmCompressRate);
}

TEST(GemmModel, ProfileKeepsTheBlasRates) {
  MachineProfile m = commpress::testing::dev_box_profile();
  m.gemm_flops_f64 = 12.5e9;
  m.gemm_flops_f32 = 25e9;
  auto back = commpress::comm::profile_from_json(commpress::comm::profile_to_json(m));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->gemm_flops_f64, 12.5e9);
  EXPECT_DOUBLE_EQ(back->gemm_flops_f32, 25e9);
  // A profile written before the rates existed reads as unmeasured (the defaults apply).
  m.gemm_flops_f64 = m.gemm_flops_f32 = 0;
  const std::string old = commpress::comm::profile_to_json(m);
  ASSERT_EQ(old.find("gemm_flops"), std::string::npos);
  back = commpress::comm::profile_from_json(old);
  ASSERT_TRUE(back.ok());
  EXPECT_DOUBLE_EQ(gemm_flop_rate(*back, Dtype::f64), kDefaultGemmFlopsF64);
}

// SUMMA's blocking broadcasts along a line by a tree that turns with the root
// (panel_broadcasts.cpp): after the first panel the line goes at the pace of a root's own
// sends, the next root being one of its first members. 16 members a node apart, 8 lines a
// node, 32 KiB pieces: Open MPI's table runs the binomial tree, whose root sends 4 messages,
// each waiting for the 31 others' bytes on its node's link; a line of two is one broadcast a
// panel.
TEST(GemmModel, TreePanelsGoAtTheRootsPace) {
  commpress::model::detail::GridLine g;
  const double a = 1e-5, b = 1e-9, x = 32768;
  g.inside = line(a, b);
  g.across = commpress::model::detail::shared(line(a, b), 8);
  g.per_node = 1;
  g.nodes = g.size = 16;
  const GemmCodec raw;
  const double first = g.bcast(raw, x);
  EXPECT_NEAR(g.bcast_panels(raw, x, 16, 16, 1), first + 15 * (a + 32 * x * b), 1e-12);
  EXPECT_LT(g.bcast_panels(raw, x, 16, 16, 1), 16 * first);
  g.nodes = g.size = 2;
  EXPECT_NEAR(g.bcast_panels(raw, x, 6, 6, 1), 6 * g.bcast(raw, x), 1e-12);
}

// SUMMA's blocking broadcasts along a line by the simulator's chain (panel_broadcasts.cpp):
// member order, a root other than member 0 first hands it the whole message, and a member
// takes a panel only once through the one before. Four members a node apart, roots 0..3: a
// chain hop h, the root's message H. Panel 0 reaches member j at j h; panel 1 leaves member 0
// once panel 0 reached member 1 and crossed back (h + H), ..., the last at 9h + 3H, where one
// broadcast a panel would be 4 x 3h.
TEST(GemmModel, ChainedPanelsOverlapBehindTheNextRoot) {
  commpress::model::detail::GridLine g;
  g.across = g.inside = line(1e-5, 1e-9);
  g.per_node = 1;
  g.nodes = g.size = 4;
  const double x = 65536;
  const double h = commpress::model::detail::chain_hop(g.across, x), H = g.across.time(x);
  ASSERT_LT(h, H);
  EXPECT_NEAR(g.chain_panels(x, 4, 4, 1), 9 * h + 3 * H, 1e-12);
  EXPECT_NEAR(g.chain_panels(x, 1, 4, 1), 3 * h, 1e-12);  // root 0: the chain alone
  // Every second panel of 8 (a 2.5D layer's): roots 0, 1, 2, 3 again.
  EXPECT_NEAR(g.chain_panels(x, 4, 8, 2), 9 * h + 3 * H, 1e-12);
}

// A network of switches: 16 x 16 on 32 nodes of 8, 16 nodes a switch. A grid row (2 nodes)
// sits under one switch and crosses on its link; a column (every second node, all 32) does
// not, keeping the network between switches, though its butterflies' partners up to 8 nodes
// apart share a switch.
TEST(GemmModel, LinesUnderOneSwitchCrossOnItsLink) {
  GemmScenario s = square(1024, {16, 16, 1}, 1e-5, 1e-9, INFINITY);
  s.node_size = 8;
  s.node_link = line(1e-6, 1e-10);
  const auto row0 = commpress::model::detail::row_line(s);
  const auto col0 = commpress::model::detail::col_line(s);
  s.switch_link = line(4e-6, 1e-9);
  s.switch_nodes = 16;
  const auto row = commpress::model::detail::row_line(s);
  const auto col = commpress::model::detail::col_line(s);
  EXPECT_EQ(row.node_stride, 1);
  EXPECT_EQ(col.node_stride, 2);
  EXPECT_DOUBLE_EQ(row.across.eager.alpha, 4e-6);
  EXPECT_DOUBLE_EQ(row.across.sharers, row0.across.sharers);
  EXPECT_DOUBLE_EQ(col.across.eager.alpha, 1e-5);
  ASSERT_TRUE(col.switch_link.has_value());
  EXPECT_DOUBLE_EQ(col.switch_link->sharers, col0.across.sharers);  // the node's 8 columns
  EXPECT_LT(row.hop(1000), row0.hop(1000));
  EXPECT_DOUBLE_EQ(col.hop(1000), col0.hop(1000));
  // The column's agreement: recursive doubling over 16 members, partners 2, 4, 8 and 16
  // nodes apart, the first three under one switch.
  EXPECT_NEAR(col0.allreduce(16) - col.allreduce(16), 3 * (1e-5 - 4e-6), 1e-12);
}

// The simulator's binary tree (open_mpi_tuned.cpp, heap_bcast): a heap rooted at member 0
// whatever the root, whose root other than 0 first hands member 0 the message; a member's two
// children on the same kind of link share it (T2, where one alone takes T1). Three members a
// node apart, 4 KiB (one segment): panel 0 reaches members 1 and 2 at T2; panel 1, rooted at
// member 1, leaves it once panel 0 arrived (T2), reaches member 0 at T2 + T1 and the others
// at 2 T2 + T1, where one broadcast a panel would be 2 (T1 + T2).
TEST(GemmModel, HeapPanelsGoThroughMemberZero) {
  commpress::model::detail::GridLine g;
  g.across = g.inside = line(1e-5, 1e-9);
  g.per_node = 1;
  g.nodes = g.size = 3;
  const double x = 4096, T1 = g.across.time(x);
  Link two = g.across;
  two.sharers = 2;
  const double T2 = two.time(x);
  ASSERT_GT(T2, T1);
  EXPECT_NEAR(g.heap_panels(x, 1, 2, 1), T2, 1e-12);
  EXPECT_NEAR(g.heap_panels(x, 2, 2, 1), 2 * T2 + T1, 1e-12);
}

// Past one segment (8 KiB) member 0 posts every segment to both children at once, so its
// children's last arrives after the first one's time and the others' bytes at the shared
// rate; a forwarding member's child one segment after it; the bytes past the last whole
// segment go by a broadcast of their own (priced R here), which every member starts once
// the root has its part. Four members: member 3 is member 1's only child.
TEST(GemmModel, HeapSegmentsPipeAndTheRestGoesAfter) {
  using commpress::model::detail::heap_bcast;
  using commpress::model::detail::heap_rest;
  const Link l = line(1e-5, 1e-9);
  Link two = l;
  two.sharers = 2;
  const double seg = 8192, x = 2 * seg + 100, R = 1e-3;
  EXPECT_EQ(heap_rest(x), 100);
  EXPECT_EQ(heap_rest(2 * seg), 0);
  EXPECT_EQ(heap_rest(seg / 2), 0);
  std::vector<double> done(4, 0.0);
  heap_bcast(l, l, 1, x, 0, R, done);
  const double child = two.time(seg) + seg * 2 * 1e-9;
  EXPECT_NEAR(done[1], child + R, 1e-12);
  EXPECT_NEAR(done[2], child + R, 1e-12);
  EXPECT_NEAR(done[3], child + l.time(seg) + R, 1e-12);
  EXPECT_NEAR(done[0], R, 1e-12);
}

}  // namespace
