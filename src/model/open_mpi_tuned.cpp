// MPI's own bcast, reductions and allgather as Open MPI 4.1's tuned component runs them: its
// fixed decision picks one algorithm per (communicator size, bytes), and the cost is that
// algorithm's, step by step, with the partners each step pairs. The simulated cluster runs
// the same decision (SMPI's Open MPI selector), so the MPI baseline Auto weighs is the one
// the program would otherwise get. Taking the best of MPI's algorithms instead was wrong both
// ways: Open MPI's butterflies pair the nearest ranks first, so with ranks placed node by node
// their largest halves stay inside a node (the model sent them over the network), and its
// table sometimes picks a slower algorithm than the best.
//
// Only commutative operations reach here (the library's sum, min, max and prod on predefined
// types). MPI_Reduce_scatter_block is priced with MPI_Reduce_scatter's table, as the
// simulator runs it; on one machine `commpress profile` measures it against the ring instead.
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "model/cost_terms.hpp"

namespace commpress::model::detail {

namespace {

// One row of a decision table: communicators smaller than `ranks_below` take the first
// algorithm whose byte limit the call is under, else `otherwise`.
struct Limit {
  double bytes_below;
  int algorithm;
};
struct Row {
  int ranks_below;
  std::initializer_list<Limit> limits;
  int otherwise;
};

int decide(std::initializer_list<Row> table, int p, double bytes) {
  for (const Row& row : table) {
    if (p >= row.ranks_below) continue;
    for (const Limit& l : row.limits)
      if (bytes < l.bytes_below) return l.algorithm;
    return row.otherwise;
  }
  return table.end()[-1].otherwise;
}

constexpr int kLargest = 1 << 30;

// Allreduce, by the vector's bytes: 2 reduce then bcast, 3 recursive doubling, 4 ring,
// 5 segmented ring, 6 Rabenseifner (recursive halving, then recursive doubling).
int allreduce_algorithm(int p, double n) {
  return decide({{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
                 {8, {{16, 4}, {8192, 3}}, 6},
                 {16, {{8192, 3}}, 6},
                 {32, {{64, 5}, {4096, 3}}, 6},
                 {64, {{128, 5}}, 6},
                 {128, {{262144, 3}}, 6},
                 {256, {{131072, 2}, {262144, 3}}, 6},
                 {512, {{4096, 2}}, 6},
                 {2048, {{2048, 2}, {16384, 3}}, 6},
                 {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
                 {kLargest, {{2048, 2}, {16384, 5}, {32768, 3}}, 6}},
                p, n);
}

// Reduce-scatter, by the vector's bytes: 1 reduce then scatter, 2 recursive halving,
// 3 ring, 4 butterfly.
int reduce_scatter_algorithm(int p, double n) {
  return decide({{4, {{65536, 3}, {131072, 4}}, 3},
                 {8, {{8, 1}, {262144, 2}}, 3},
                 {32, {{262144, 2}}, 3},
                 {64, {{64, 1}, {2048, 2}, {524288, 4}}, 3},
                 {128, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}}, 4},
                 {256, {{256, 1}, {512, 2}}, 4},
                 {512, {{256, 1}, {1024, 2}}, 4},
                 {1024, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}}, 4},
                 {2048, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}}, 4},
                 {4096, {{512, 1}, {4096, 2}}, 4},
                 {kLargest, {{1024, 1}, {8192, 2}}, 4}},
                p, n);
}

// Allgather, by one rank's block: 2 Bruck, 3 recursive doubling, 4 ring, 5 neighbour
// exchange, 6 the two-rank exchange.
int allgather_algorithm(int p, double b) {
  if (p == 2) return 6;
  return decide({{32, {}, 3},
                 {64, {{1024, 3}, {65536, 5}}, 4},
                 {128, {{512, 3}, {65536, 5}}, 4},
                 {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
                 {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
                 {1024, {{64, 3}, {256, 2}, {2048, 3}}, 5},
                 {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
                 {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
                 {kLargest, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5}},
                p, b);
}

// Bcast, by the message's bytes: 1 linear, 2 chain, 3 pipeline, 4 split binary tree, 5
// binary tree, 6 binomial, 7 k-nomial, 8 scatter then recursive-doubling allgather, 9
// scatter then ring allgather.
int bcast_algorithm(int p, double n) {
  return decide({{4, {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5},
                      {262144, 2}, {524288, 1}, {1048576, 6}}, 5},
                 {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
                 {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
                 {32, {{4096, 7}, {1048576, 6}}, 8},
                 {64, {{2048, 6}}, 7},
                 {128, {}, 7},
                 {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
                 {1024, {{16384, 7}, {32768, 4}}, 7},
                 {2048, {{524288, 7}}, 8},
                 {4096, {{262144, 7}}, 8},
                 {kLargest, {{8192, 7}, {16384, 5}, {262144, 7}}, 8}},
                p, n);
}

// The ranks beyond the largest power of two first hand their vector to a neighbour and get
// the result back at the end (Open MPI's fold for the butterflies).
double fold_in(const Terms& t, double n) {
  return t.p() > floor_pow2(t.p()) ? t.pair_msg(n, 1) + t.gamma(n) : 0;
}
double fold_out(const Terms& t, double n) {
  return t.p() > floor_pow2(t.p()) ? t.pair_msg(n, 1) : 0;
}

// Recursive halving with distance doubling (Open MPI's Rabenseifner and butterfly): step j
// moves n / 2^j to the partner 2^(j-1) away (reducing it where `reduce`), so the largest
// halves stay inside a node. Rabenseifner's allgather retraces the same pieces and partners.
double nearest_first(const Terms& t, double n, bool reduce) {
  double sum = 0;
  const int steps = ceil_log2(floor_pow2(t.p()));
  for (int j = 1; j <= steps; ++j) {
    const double x = n / double(1 << j);
    sum += t.pair_msg(x, 1 << (j - 1)) + (reduce ? t.gamma(x) : 0);
  }
  return sum;
}

// Recursive halving with distance halving (Open MPI's small reduce-scatter): the partner
// `mask` away gets `mask` ranks' blocks.
double halving_farthest_first(const Terms& t, double n) {
  const int p2 = floor_pow2(t.p());
  double sum = 0;
  for (int mask = p2 / 2; mask >= 1; mask /= 2) {
    const double x = n * mask / p2;
    sum += t.pair_msg(x, mask) + t.gamma(x);
  }
  return sum;
}

// Whole vectors with partners 1, 2, 4, ... away (recursive doubling).
double doubling_whole(const Terms& t, double n) {
  double sum = 0;
  for (int dist = 1; dist < floor_pow2(t.p()); dist *= 2) sum += t.pair_msg(n, dist) + t.gamma(n);
  return sum;
}

// A binomial tree of whole messages (reduce or bcast): one level per bit, partners placed as
// a butterfly's.
double binomial_tree(const Terms& t, double n, bool reduce) {
  return tree_hops(t, n) + (reduce ? ceil_log2(t.p()) * t.gamma(n) : 0);
}

// A binomial scatter (or gather) of an n-byte vector: the root's halves, quarters, ...
double binomial_scatter(const Terms& t, double n) {
  double sum = 0;
  for (int j = 1; j <= ceil_log2(t.p()); ++j) sum += t.msg(n / double(1 << j));
  return sum;
}

// A ring over the ranks in order: every step waits for its one crossing of each node
// boundary (every node has one at a time), so a step costs one network message.
double ring_steps(const Terms& t, double b, bool reduce) {
  return (t.p() - 1) * (t.msg(b) + (reduce ? t.gamma(b) : 0));
}

// A vector of fewer elements than ranks cannot go round a ring. Open MPI's ring then runs
// recursive doubling; the simulator's (allreduce "lr") runs its default allreduce, a reduce
// to rank 0 and a bcast from it, each a binomial tree. Elements are 4 bytes or more, so a
// vector under 4 bytes a rank has fewer: every ring entry of the table for small vectors (the
// agreements' two integers on 16 to 63 ranks) is one.
double too_short_for_a_ring(const Terms& t, double n) {
#ifdef COMMPRESS_SMPI
  return binomial_tree(t, n, true) + binomial_tree(t, n, false);
#else
  return fold_in(t, n) + doubling_whole(t, n) + fold_out(t, n);
#endif
}

double open_mpi_allreduce(const Terms& t, double n) {
  const int p = t.p();
  switch (allreduce_algorithm(p, n)) {
    case 2:
      return binomial_tree(t, n, true) + binomial_tree(t, n, false);
    case 3:
      return fold_in(t, n) + doubling_whole(t, n) + fold_out(t, n);
    case 4:
    case 5:
      if (n < 4.0 * p) return too_short_for_a_ring(t, n);
      return ring_steps(t, n / p, true) + ring_steps(t, n / p, false);
    default:
      return fold_in(t, n) + nearest_first(t, n, true) + nearest_first(t, n, false) +
             fold_out(t, n);
  }
}

double mirror_exchange(const Terms& t, double b) {
  return t.step_msg(b, false, std::max(1, t.scenario().ranks_per_node));
}

double open_mpi_reduce_scatter(const Terms& t, double n) {
  const int p = t.p();
  const double b = n / p;
  switch (reduce_scatter_algorithm(p, n)) {
    case 1:
      return binomial_tree(t, n, true) + binomial_scatter(t, n);
    case 2:
      return fold_in(t, n) + halving_farthest_first(t, n) + fold_out(t, b);
    case 3:
      return ring_steps(t, b, true);
    // The butterfly ends with the mirror exchange: each rank swaps its finished block with
    // the rank whose index is its own bit-reversed, for nearly every rank on another node.
    default:
      return fold_in(t, n) + nearest_first(t, n, true) + mirror_exchange(t, b) + fold_out(t, b);
  }
}

// The k-nomial tree of radix 4, whole messages: at each level every rank holding the
// message sends it to up to three more at once (as the simulator's k-nomial does). A level's
// sends off a node share its link; copies inside a node each go at the node link's rate (a
// node's memory serves several copies at once, as the simulated nodes' loopback does). The
// root's place stands for every sender's (ranks placed node by node, the senders' spacing a
// multiple or divisor of the node's ranks).
double knomial_bcast(const Terms& t, double n) {
  constexpr int kRadix = 4;
  const int p = t.p(), r = t.scenario().ranks_per_node;
  int mask = 1;
  while (mask * kRadix < p) mask *= kRadix;
  double sum = 0;
  for (; mask >= 1; mask /= kRadix) {
    int off = 0, inside = 0;
    for (int d = 1; d < kRadix && d * mask < p; ++d)
      (t.across_nodes() && d * mask < r ? inside : off) += 1;
    const int senders = t.across_nodes() ? std::max(1, r / (kRadix * mask)) : 1;
    const double net = off == 0            ? 0
                       : t.across_nodes() ? t.step_msg(n, false, off * senders)
                                          : t.msg(off * n);
    const double local = inside ? t.node_msg(n) : 0;
    sum += std::max(net, local);
  }
  return sum;
}

// Segmented trees and chains, priced with the library's chunk as the segment (the table's own
// segment sizes vary by entry and by implementation: docs/models.md, "MPI baselines"): the
// pipeline's fill (the tree's depth, or the chain's length, in segment messages) then one
// segment a step per child a rank sends to (a tree over two ranks has one).
double segmented(const Terms& t, double n, int depth, int children) {
  const double k = t.chunks(n), seg = n / k;
  return (depth + k - 1) * children * t.msg(seg);
}

#ifdef COMMPRESS_SMPI
// The simulator's entry for Open MPI's linear bcast is a pipelined chain (rank i sends to
// i + 1 in 8 KiB segments), but a rank posts every segment it holds at once and the simulator
// shares a link fairly among the flows, so a hop's segments all arrive with its last: each
// hop moves the whole message, at one eager message's latency. SMPI's default bandwidth
// factors (smpi/bw-factor) give an 8 KiB message 1.087 of a link's bandwidth and one of
// 64 KiB or more 0.941, which is what the fitted rendezvous beta carries: the segments flow
// at 0.941 / 1.087 of it. Ranks placed node by node: one hop per node boundary crosses the
// network. A root other than rank 0 first hands rank 0 the message; not charged here: the
// collectives' bcast roots at 0, and SUMMA's panels, whose roots go round the ranks, are
// priced member by member with that hop (panel_broadcasts.cpp; docs/models.md, "MPI
// baselines").
double whole_message_chain(const Terms& t, double n) {
  const int p = t.p();
  const int crossing = t.across_nodes() ? p / t.scenario().ranks_per_node - 1 : p - 1;
  return crossing * chain_hop(t.machine().network, n) +
         (p - 1 - crossing) * chain_hop(t.machine().node_link(), n);
}
#endif

double open_mpi_bcast(const Terms& t, double n);

#ifdef COMMPRESS_SMPI
// One heap_bcast from rank 0, ranks placed node by node.
double heap_from_zero(const Terms& t, double n) {
  std::vector<double> done(size_t(t.p()), 0.0);
  const double rest = heap_rest(n) > 0 ? open_mpi_bcast(t, heap_rest(n)) : 0;
  const int per_node = t.across_nodes() ? t.scenario().ranks_per_node : 1;
  const Link& inside = t.across_nodes() ? t.machine().node_link() : t.machine().network;
  heap_bcast(t.machine().network, inside, per_node, n, 0, rest, done);
  return *std::max_element(done.begin(), done.end());
}
#endif

double open_mpi_bcast(const Terms& t, double n) {
  const int p = t.p(), r = std::max(1, t.scenario().ranks_per_node);
  switch (bcast_algorithm(p, n)) {
    // Open MPI's basic linear: the root sends to every rank, off its node through its link.
    case 1: {
#ifdef COMMPRESS_SMPI
      (void)r;
      return whole_message_chain(t, n);
#else
      if (!t.across_nodes()) return t.msg((p - 1) * n);
      return std::max(t.step_msg(n, false, p - r), t.node_msg((r - 1) * n));
#endif
    }
    case 2:
    case 3:
      return segmented(t, n, p - 1, 1);
    case 5:
#ifdef COMMPRESS_SMPI
      return heap_from_zero(t, n);
#endif
      [[fallthrough]];
    case 4:
      return segmented(t, n, ceil_log2(p + 1) - 1, std::min(2, p - 1));
    case 6:
      return binomial_tree(t, n, false);
    case 7:
      return knomial_bcast(t, n);
    case 8: {
      double gather = 0;
      for (int dist = 1; dist < floor_pow2(p); dist *= 2) gather += t.pair_msg(n / p * dist, dist);
      return binomial_scatter(t, n) + gather;
    }
    default:
      return binomial_scatter(t, n) + ring_steps(t, n / p, false);
  }
}

}  // namespace

double mpi_bcast_cost(const Terms& t) {
  return t.p() <= 1 ? 0 : open_mpi_bcast(t, t.scenario().bytes);
}

double mpi_allgather_cost(const Terms& t) {
  const double b = t.scenario().bytes;
  const int p = t.p();
  if (p <= 1) return 0;
  const bool pow2 = p == floor_pow2(p);
  switch (allgather_algorithm(p, b)) {
    case 6:
      return t.msg(b);
    case 3:
      if (pow2) {
        double sum = 0;
        for (int dist = 1; dist < p; dist *= 2) sum += t.pair_msg(b * dist, dist);
        return sum;
      }
      return bruck_messages(t, b);  // Open MPI's recursive doubling hands odd sizes to Bruck
    case 2:
      return bruck_messages(t, b);
    case 5:
      // Pairs of neighbours swap what they hold, alternating: p / 2 steps, each after the
      // first two blocks; an odd p takes the ring. The first step and every other one pair
      // (even, even + 1), which share a node when the nodes hold an even number of ranks;
      // the steps between pair (odd, odd + 1), which cross every node boundary: a node's
      // first and last rank both send off it.
      if (p % 2 == 0) {
        const bool pairs_inside = t.across_nodes() && t.scenario().ranks_per_node % 2 == 0;
        const int crossing = (p / 2) / 2, inside = p / 2 - 1 - crossing;
        if (!pairs_inside) return t.msg(b) + (p / 2 - 1) * t.msg(2 * b);
        return t.node_msg(b) + inside * t.node_msg(2 * b) + crossing * t.step_msg(2 * b, false, 2);
      }
      [[fallthrough]];
    default:
      return ring_steps(t, b, false);
  }
}

double mpi_reduction_cost(const Terms& t) {
  const int p = t.p();
  if (p <= 1) return 0;
  const Scenario& s = t.scenario();
  switch (s.op) {
    case Operation::reduce_scatter: {
      const double n = s.bytes * p;
      if (const double slowdown = t.machine().reduce_scatter_mpi.at(p, s.bytes); slowdown > 0)
        return slowdown * plain_ring_cost(t);
      return open_mpi_reduce_scatter(t, n);
    }
    case Operation::allreduce:
      return open_mpi_allreduce(t, s.bytes);
    case Operation::reduce: {
      // Open MPI's reduce table is a family of segmented trees: priced as the better of the
      // binomial tree and a reduce-scatter then gather.
      const double n = s.bytes;
      return std::min(binomial_tree(t, n, true),
                      fold_in(t, n) + nearest_first(t, n, true) + binomial_scatter(t, n));
    }
    default:
      return INFINITY;
  }
}

double chain_hop(const Link& l, double n) {
  constexpr double kSmpiSegmentBeta = 0.940694 / 1.08739;
  return l.eager.alpha + n * kSmpiSegmentBeta * (l.sharers * l.rendezvous.beta + l.queued_beta);
}

std::vector<int> mpi_bcast_root_sends(int p, double n) {
  std::vector<int> children;
  if (bcast_algorithm(p, n) == 6)
    for (int d = 1; d < p; d *= 2) children.push_back(d);
  return children;
}

// The simulator's binary tree (its entry for the table's binary tree) is a heap over the
// ranks rooted at rank 0 whatever the root (rank m sends to 2m + 1 and 2m + 2), which a root
// other than 0 first hands the whole message. It moves 8 KiB segments: rank 0 posts all of
// them to both children at once, every other rank forwards each as it arrives, so a rank's
// last segment arrives one segment after its parent's; messages of a segment or less go
// whole. Both children on the same kind of link share it. The bytes past the last whole
// segment then go by a broadcast of their own, the table's choice for their size, which the
// ranks reach as the root does. Every message here is under the protocol switch (the
// handoff aside), so a rank is through once it has its own.
constexpr double kHeapSegment = 8192;

double heap_rest(double n) {
  return n <= kHeapSegment ? 0 : n - kHeapSegment * std::floor(n / kHeapSegment);
}

void heap_bcast(const Link& across, const Link& inside, int per_node, double n, int root,
                double rest, std::vector<double>& done) {
  const int p = int(done.size());
  if (p <= 1 || n <= 0) return;
  const auto same_node = [per_node](int a, int b) { return a / per_node == b / per_node; };
  const double seg = std::min(n, kHeapSegment), more = std::floor(n / seg) - 1;
  std::vector<double> has(done.size());
  has[0] = root == 0 ? done[0]
                     : std::max(done[0], done[size_t(root)] +
                                             (same_node(root, 0) ? inside : across).time(n));
  for (int m = 1; m < p; ++m) {
    const int parent = (m - 1) / 2, sibling = m % 2 ? m + 1 : m - 1;
    Link l = same_node(parent, m) ? inside : across;
    if (sibling < p && same_node(parent, sibling) == same_node(parent, m)) l.sharers *= 2;
    double arrives = has[size_t(parent)] + l.time(seg);
    if (parent == 0) arrives += more * seg * (l.sharers * l.rendezvous.beta + l.queued_beta);
    has[size_t(m)] = std::max(done[size_t(m)], arrives);
  }
  const double start = rest > 0 ? has[size_t(root)] : 0;
  for (size_t m = 0; m < done.size(); ++m)
    done[m] = rest > 0 ? std::max(has[m], start) + rest : has[m];
}

namespace {

// Whether the simulator runs this MPI_Bcast as the table's algorithm `alg` (never on a real
// MPI, whose trees are not the simulator's look-alikes).
bool simulated_bcast_is(int p, double n, int alg) {
#ifdef COMMPRESS_SMPI
  return bcast_algorithm(p, n) == alg;
#else
  (void)p;
  (void)n;
  (void)alg;
  return false;
#endif
}

}  // namespace

bool mpi_bcast_is_heap(int p, double n) { return simulated_bcast_is(p, n, 5); }

bool mpi_bcast_is_chain(int p, double n) { return simulated_bcast_is(p, n, 1); }

}  // namespace commpress::model::detail
