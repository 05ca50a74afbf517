// Reductions: reduce_scatter_block, allreduce, reduce, for every ring kind (DOC, homomorphic
// hZCCL, fused HomComp_F: thesis eqs. 5.4, 5.5, 6.2), homomorphic recursive doubling
// (ghZCCL, eq. 7.2 with MPICH's fold for non-powers of two), Rabenseifner with the
// compressed/raw switch, and the hierarchical mixed allreduce (ArGM). An allreduce is a
// reduce-scatter followed by an allgather of the finished frames (no recompression).
// n below is always the whole vector's bytes; B = n / p a block.
#include <algorithm>
#include <cmath>

#include "model/cost_terms.hpp"

namespace commpress::model::detail {

namespace {

// How finely each compression must quantize: the user's bound is split among the k
// quantizations behind one result element (sums add errors; min/max chain them).
double divisor(const Terms& t, Algorithm a, int p, bool final_frames) {
  if (p <= 1) return 1;
  const bool sum = t.scenario().sum;
  switch (a) {
    case Algorithm::DocRing: return p - 1 + (final_frames ? 1 : 0);
    case Algorithm::Rabenseifner: return sum ? p : ceil_log2(p) + 1;
    default: return p;  // homomorphic: every input quantized once
  }
}

// Messages of one ring step: the block's chunks, each its own message.
double ring_step(const Terms& t, double b, double k) { return t.stream(b, t.wire(b, k)); }

}  // namespace

double ring_reduce_scatter(const Terms& t, Algorithm ring, double n, int p,
                           bool with_final_decode) {
  if (p <= 1) return 0;
  const double b = n / p, k = divisor(t, ring, p, !with_final_decode);
  const double step = ring_step(t, b, k);
  const double dec = with_final_decode ? t.d(b) : 0;
  // The p - 1 steps' work and messages; they overlap chunk by chunk where the link allows.
  auto steps = [&](double work) {
    return t.rounds(p - 1, work, step, t.chunks(b), t.wire(b, k) / t.chunks(b));
  };
  switch (ring) {
    // (p - 1) {c_B + d_B + B gamma + alpha + (B / r) beta}             (5.4)
    case Algorithm::DocRing:
      return steps(t.c(b) + t.d(b) + t.gamma(b)) + (with_final_decode ? 0 : t.c(b));
    // (p - 1) {h_B + alpha + (B / r) beta} + p c_B + d_B                (5.5)
    case Algorithm::HomomorphicRing: return steps(t.h(b)) + p * t.c(b) + dec;
    // (p - 1) {hr_B + alpha + (B / r) beta} + c_B + d_B                 (6.2)
    case Algorithm::FusedRing: return steps(t.hr(b)) + t.c(b) + dec;
    default: return INFINITY;
  }
}

namespace {

enum class End { scatter, all, root };

double ring(const Terms& t, Algorithm a, double n, int p, End end) {
  if (p <= 1) return 0;
  const double b = n / p, k = divisor(t, a, p, end != End::scatter);
  if (end == End::scatter) return ring_reduce_scatter(t, a, n, p, true);
  const double rs = ring_reduce_scatter(t, a, n, p, false);
  // The finished frames circulate (allgather) or go to the root; every block decoded once.
  const double moves = (p - 1) * ring_step(t, b, k);
  return rs + moves + p * t.d(b);
}

// ghZCCL: c + log2(p) {h + alpha + (n / r) beta} + d, whole vectors; a non-power of two
// folds the extra ranks in and out (two more transfers, one more combine).
double recursive_doubling(const Terms& t, double n, End end) {
  const int p = t.p();
  if (p <= 1) return 0;
  const double k = divisor(t, Algorithm::HomomorphicRecursiveDoubling, p, true);
  auto hop = [&](int dist) { return t.pair_stream(n, t.wire(n, k), dist) + t.h(n); };
  double hops = 0;
  if (end == End::root) {
    for (int dist = 1; dist < p; dist *= 2) hops += hop(dist);
    return t.c(n) + hops + t.d(n);
  }
  const int p2 = floor_pow2(p);
  for (int dist = 1; dist < p2; dist *= 2) hops += hop(dist);
  const double fold = p > p2 ? hop(p2) + t.pair_stream(n, t.wire(n, k), p2) : 0;
  return t.c(n) + hops + fold + t.d(n);
}

// Recursive halving (each range decompressed, reduced and, while at least the break-even
// size, compressed again), then recursive doubling of the finished blocks' frames.
double rabenseifner(const Terms& t, double n, End end) {
  const int p = t.p();
  if (p <= 1) return 0;
  const int p2 = floor_pow2(p), steps = ceil_log2(p2);
  const double k = divisor(t, Algorithm::Rabenseifner, p, true);
  const double be = t.scenario().break_even_bytes >= 0
                        ? t.scenario().break_even_bytes
                        : (t.rates() ? break_even_bytes(t.machine(), *t.rates(), t.scenario().ratio.at(k))
                                     : INFINITY);
  auto packed = [&](double x) { return x >= be; };
  auto wire = [&](double x) { return packed(x) ? t.wire(x, k) : x; };
  // One DOC exchange of x bytes with the partner dist ranks away, reduced on arrival.
  auto transfer = [&](double x, int dist) {
    return (packed(x) ? t.c(x) + t.d(x) : 0) + t.pair_stream(x, wire(x), dist) + t.gamma(x);
  };
  double total = p > p2 ? transfer(n, p2) : 0;
  // Halving: the largest half goes to the farthest partner (mask p2 / 2 first).
  for (int j = 1; j <= steps; ++j) total += transfer(n / double(1 << j), p2 >> j);
  const double block = n / p2;
  switch (end) {
    case End::scatter:
      return total + (p > p2 ? t.stream(n / p, wire(n / p)) + (packed(n / p) ? t.c(n / p) + t.d(n / p) : 0) : 0);
    case End::all: {
      double doubling = packed(block) ? t.c(block) + p2 * t.d(block) : 0;
      for (int j = 0; j < steps; ++j) doubling += t.pair_msg(wire(block * double(1 << j)), 1 << j);
      if (p > p2) doubling += t.msg(wire(n)) + (packed(block) ? (p2 - 1) * t.d(block) : 0);
      return total + doubling;
    }
    case End::root:
      return total + (packed(block) ? t.c(block) + p2 * t.d(block) : 0) +
             (p2 - 1) * t.stream(block, wire(block));
  }
  return INFINITY;
}

// ArGM: raw reduce-scatter inside each node of d ranks (MPI's ring on the node link), a
// compressed ring across the N = p / d nodes on each node-block (d rings at once, sharing
// each node's link), raw allgather inside.
double hierarchical(const Terms& t, double n, End end) {
  const int p = t.p();
  const int d = std::max(1, t.scenario().ranks_per_node);
  const Algorithm inner = t.scenario().sum && t.rates() && t.rates()->combine > 0
                              ? Algorithm::HomomorphicRing
                              : Algorithm::DocRing;
  if (p <= 1) return 0;
  if (d <= 1 || p % d != 0 || d == p)  // no usable node structure: the inner ring over all
    return ring(t, inner, n, p, end);
  const int nodes = p / d;
  const double part = n / d;
  const double intra_rs = (d - 1) * (t.node_msg(part) + t.gamma(part));
  // Every local rank runs its own ring across the nodes at once: d rings share a node's link.
  const double cross = ring(t.shared_by(d), inner, part, nodes, end);
  if (end == End::all) return intra_rs + cross + (d - 1) * t.node_msg(part);
  return intra_rs + cross;
}

End end_of(Operation op) {
  return op == Operation::reduce_scatter ? End::scatter
         : op == Operation::reduce       ? End::root
                                         : End::all;
}

double vector_bytes(const Terms& t) {
  const Scenario& s = t.scenario();
  return s.op == Operation::reduce_scatter ? s.bytes * t.p() : s.bytes;
}

}  // namespace

double ccoll_doc_ring_cost(const Terms& t) {
  return ring(t, Algorithm::DocRing, vector_bytes(t), t.p(), end_of(t.scenario().op));
}
double hzccl_ring_cost(const Terms& t) {
  return ring(t, Algorithm::HomomorphicRing, vector_bytes(t), t.p(), end_of(t.scenario().op));
}
double homcomp_fused_ring_cost(const Terms& t) {
  return ring(t, Algorithm::FusedRing, vector_bytes(t), t.p(), end_of(t.scenario().op));
}
double ghzccl_recursive_doubling_cost(const Terms& t) {
  return recursive_doubling(t, vector_bytes(t), end_of(t.scenario().op));
}
double rabenseifner_cost(const Terms& t) {
  return rabenseifner(t, vector_bytes(t), end_of(t.scenario().op));
}
double argm_hierarchical_cost(const Terms& t) {
  return hierarchical(t, vector_bytes(t), end_of(t.scenario().op));
}

double plain_ring_cost(const Terms& t) {
  const int p = t.p();
  if (t.scenario().op != Operation::reduce_scatter) return INFINITY;
  const double b = t.scenario().bytes;
  return p <= 1 ? 0 : (p - 1) * (t.msg(b) + t.gamma(b));
}

double mpi_cost(const Terms& t) {
  const Operation op = t.scenario().op;
  const bool reduction = op == Operation::reduce_scatter || op == Operation::allreduce ||
                         op == Operation::reduce;
  return reduction ? mpi_reduction_cost(t) : mpi_movement_cost(t);
}

}  // namespace commpress::model::detail
