// Data movement: point-to-point, bcast, allgather, scatter, gather. Compressed forms follow
// C-Coll: each block is compressed once by its owner, frames are forwarded unchanged and
// decoded once at each destination (thesis eq. 5.2 for the allgather ring).
#include <algorithm>
#include <cmath>

#include "model/cost_terms.hpp"

namespace commpress::model::detail {

// Bruck's step d sends to the rank d below: with ranks placed node by node, min(d, R) of a
// node's R ranks send off it at once (all of them once d reaches R).
double bruck_messages(const Terms& t, double block_wire) {
  double sum = 0;
  const int p = t.p(), r = std::max(1, t.scenario().ranks_per_node);
  for (int d = 1; d < p; d *= 2)
    sum += t.step_msg(std::min(d, p - d) * block_wire, false, std::min(d, r));
  return sum;
}

namespace {

constexpr double kP2pHeaderBytes = 80;

// A stream of k chunks through stages that overlap chunk by chunk: the first chunk crosses
// every stage (fill), the remaining k - 1 advance at the pace of the slowest stage.
double pipeline(double k, double c, double w, double d) {
  return c + w + d + (k - 1) * std::max({c, w, d});
}

double p2p(const Terms& t, Algorithm a) {
  const double n = t.scenario().bytes;
  if (a == Algorithm::Mpi) return t.msg(n);
  if (a != Algorithm::Direct) return INFINITY;
  const double k = t.chunks(n), x = n / k;
  return t.msg(kP2pHeaderBytes) + pipeline(k, t.c(x), t.chunk_msg(t.wire(x), k > 1), t.d(x));
}

// Binomial bcast: the root sends the message to its ceil(log2 p) children one after the
// other (single port), each inner rank relays as soon as a chunk arrives (tree_hops).
double bcast(const Terms& t, Algorithm a) {
  const double n = t.scenario().bytes;
  const int p = t.p(), levels = ceil_log2(p);
  if (p == 1) return 0;
  const double binomial = tree_hops(t, n);  // PlainBinomial: whole messages
  if (a == Algorithm::PlainBinomial) return binomial;
  if (a == Algorithm::Mpi) {
    // Measured against the plain tree, where the profile did.
    if (const double slowdown = t.machine().bcast_mpi.at(p, n); slowdown > 0)
      return slowdown * binomial;
    return mpi_bcast_cost(t);
  }
  if (a != Algorithm::Binomial) return INFINITY;
  const double k = t.chunks(n), x = n / k, w = t.wire(x);
  const bool back_to_back = k * levels > 1;
  // Every rank posts a chunk's frame to all its children at once (send_stream, recv_stream):
  // those on other nodes share its link, each waiting for the others' bytes; those on its
  // node take the node's link. Along the deepest path (the root, its farthest child, that
  // child's farthest, ...) the parent at level i has the children 2^j away for j below
  // levels - i; the root's fan-out is the widest and paces the chunks (the pipeline), and the
  // last chunk then crosses the rest of the path.
  double path = 0, root = 0;
  for (int i = 0; i < levels; ++i) {
    int off_node = 0;
    for (int dist = 1; dist < (1 << (levels - i)) && dist < p; dist *= 2)
      off_node += !t.within_node(dist);
    const int farthest = 1 << (levels - i - 1);
    const double hop = t.within_node(farthest)
                           ? t.node_msg(w)
                           : t.chunk_msg(w, back_to_back) + (off_node - 1) * w * t.sustained_beta();
    path += hop;
    if (i == 0) root = hop;
  }
  return pipeline(k, t.c(x), root, t.d(x)) + (path - root);
}

double allgather(const Terms& t, Algorithm a) {
  const double b = t.scenario().bytes;
  const int p = t.p();
  if (p == 1) return 0;
  switch (a) {
    case Algorithm::Mpi: return mpi_allgather_cost(t);
    // T = (p - 1)(alpha + (b / r) beta + d_B) + c_B   (C-Coll, eq. 5.2)
    case Algorithm::Ring: return (p - 1) * (t.msg(t.wire(b)) + t.d(b)) + t.c(b);
    case Algorithm::RecursiveDoubling:
      return t.c(b) + bruck_messages(t, t.wire(b)) + (p - 1) * t.d(b);
    default: return INFINITY;
  }
}

// Binomial scatter/gather: ceil(log2 p) levels of messages, (p - 1) blocks through the
// root's link. The root compresses p - 1 blocks (scatter) or decodes p - 1 (gather).
double scatter_gather(const Terms& t, Algorithm a, bool scatter) {
  const double b = t.scenario().bytes;
  const int p = t.p(), levels = ceil_log2(p);
  if (p == 1) return 0;
  auto tree = [&](double block) {
    const LinkParams& lp = (p / 2) * block >= t.machine().network.switch_bytes
                               ? t.machine().network.rendezvous
                               : t.machine().network.eager;
    return levels * lp.alpha + (p - 1) * block * lp.beta;
  };
  if (a == Algorithm::Mpi) return tree(b);
  if (a != Algorithm::Binomial) return INFINITY;
  if (scatter) return (p - 1) * t.c(b) + tree(t.wire(b)) + t.d(b);
  return t.c(b) + tree(t.wire(b)) + (p - 1) * t.d(b);
}

}  // namespace

// Children 2^j away share the sender's node where the node's ranks are a multiple of
// 2^(j+1); across nodes one rank of a node sends at a time.
double tree_hops(const Terms& t, double bytes, bool back_to_back) {
  double sum = 0;
  for (int dist = 1; dist < t.p(); dist *= 2)
    sum += t.hop_msg(bytes, dist, 1, back_to_back);
  return sum;
}

double mpi_movement_cost(const Terms& t) {
  switch (t.scenario().op) {
    case Operation::p2p: return p2p(t, Algorithm::Mpi);
    case Operation::bcast: return bcast(t, Algorithm::Mpi);
    case Operation::allgather: return allgather(t, Algorithm::Mpi);
    case Operation::scatter: return scatter_gather(t, Algorithm::Mpi, true);
    case Operation::gather: return scatter_gather(t, Algorithm::Mpi, false);
    case Operation::alltoall: return mpi_alltoall_cost(t);
    default: return INFINITY;
  }
}

double direct_cost(const Terms& t) { return p2p(t, Algorithm::Direct); }

double binomial_cost(const Terms& t) {
  const Operation op = t.scenario().op;
  return op == Operation::bcast ? bcast(t, Algorithm::Binomial)
                                : scatter_gather(t, Algorithm::Binomial, op == Operation::scatter);
}

double plain_binomial_cost(const Terms& t) { return bcast(t, Algorithm::PlainBinomial); }

double allgather_ring_cost(const Terms& t) { return allgather(t, Algorithm::Ring); }

double bruck_cost(const Terms& t) { return allgather(t, Algorithm::RecursiveDoubling); }

}  // namespace commpress::model::detail
