// The building blocks every cost formula is written in: one message on a link, the codec's
// per-call costs over chunked data, the reduction rate, and the compression ratio at a
// quantization depth. Internal to src/model.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "commpress/model.hpp"

namespace commpress::model::detail {

inline int ceil_log2(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}
inline int floor_pow2(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

class Terms {
 public:
  // compressed: the terms of a compressed algorithm (oversubscription applies: the codec
  // rates scaled from the sharing they were measured under to the run's, and the waits).
  Terms(const MachineProfile& m, const CodecRates* c, const Scenario& s, bool compressed = false)
      : m_(m), c_(c), s_(s), p_(std::max(1, s.ranks)),
        over_(compressed ? std::max(1.0, s.oversubscription) : 1.0),
        codec_over_(over_ / (compressed ? std::max(1.0, m.codec_oversubscription) : 1.0)) {}

  int p() const { return p_; }
  const Scenario& scenario() const { return s_; }
  const MachineProfile& machine() const { return m_; }
  const CodecRates* rates() const { return c_; }
  double chunk() const { return s_.chunk_bytes > 0 ? s_.chunk_bytes : kDefaultChunkBytes; }
  double chunks(double bytes) const { return bytes > 0 ? std::ceil(bytes / chunk()) : 1; }

  // One message of `bytes` on the network / inside a node.
  double msg(double bytes) const { return m_.network.time(bytes) + wait(); }
  double node_msg(double bytes) const { return m_.node_link().time(bytes) + wait(); }
  // One message of `wire_bytes`, alone or one of several sent back to back (one alpha each,
  // beta of its size class). Messages back to back cannot beat the link's sustained
  // (large-message) rate, however fast one small message crosses it alone (a shaper's burst,
  // a copy that stays in cache).
  double chunk_msg(double wire_bytes, bool back_to_back) const {
    const double alone = m_.network.time(wire_bytes);
    return (back_to_back ? std::max(alone, wire_bytes * sustained_beta()) : alone) +
           (sharers_ - 1) * wire_bytes * sustained_beta() + wait();
  }
  // The network's sustained (large-message) seconds per byte, with what a message on a
  // shared link waits for the other flows' bytes (Link::sharers, Link::queued_beta).
  double sustained_beta() const {
    return m_.network.sharers * m_.network.rendezvous.beta + m_.network.queued_beta;
  }
  // These terms for an algorithm that n ranks of every node run at once, each its own
  // instance over the nodes (Hierarchical's rings across nodes, one per local rank): their
  // chunk messages share the node's one link, each waiting for the others' bytes.
  Terms shared_by(double n) const {
    Terms t = *this;
    t.sharers_ = std::max(1.0, n);
    return t;
  }
  // `bytes` sent as chunk messages, back to back with the other steps' (a ring's).
  double stream(double bytes, double wire_bytes) const {
    double k = chunks(bytes);
    return k * chunk_msg(wire_bytes / k, true);
  }

  // Ranks placed node by node, ranks_per_node (R) a node, over several whole nodes: the steps
  // below see node boundaries. Without known nodes every step is a network message, msg().
  bool across_nodes() const {
    const int r = s_.ranks_per_node;
    return r > 1 && p_ % r == 0 && p_ > r;
  }
  // Whether partners `dist` apart in a butterfly or binomial tree (rank r and r ^ dist, or
  // r + dist for r a multiple of 2 dist) always share a node: R a multiple of 2 dist.
  bool within_node(int dist) const {
    return across_nodes() && s_.ranks_per_node % (2 * dist) == 0;
  }
  // One message of a step in which `sharers` of a node's ranks send off it at once: they
  // share the node's one network link at its sustained (large-message) rate, so each waits
  // for the others' bytes too; inside a node, the node's link.
  double step_msg(double bytes, bool inside, double sharers, bool back_to_back = false) const {
    if (inside) return node_msg(bytes);
    return chunk_msg(bytes, back_to_back) +
           (across_nodes() ? std::max(0.0, sharers - 1) : 0) * bytes * sustained_beta();
  }
  // Whether partners `dist` apart (as within_node) are on two nodes under one switch of the
  // network (MachineProfile::switch_nodes): fewer nodes apart than a switch holds. Where
  // ranks are placed node by node and the switch's nodes are a multiple of the distance,
  // a butterfly's partners then always share a switch.
  bool within_switch(int dist) const {
    if (!m_.switch_link || m_.switch_nodes <= 1 || within_node(dist)) return false;
    const int r = std::max(1, s_.ranks_per_node);
    if (r > 1 && !across_nodes()) return false;
    return double(dist) / r * std::max(1, s_.node_stride) < m_.switch_nodes;
  }
  // A message of `bytes` between nodes under one switch: the network's time (between
  // switches) less what the extra hops add, the difference of the two measured links.
  double under_switch(double network_time, double bytes) const {
    return network_time - std::max(0.0, m_.network.time(bytes) - m_.switch_link->time(bytes));
  }
  // One message to a partner `dist` away in a step in which `sharers` of a node's ranks send
  // off it at once (as step_msg, on the link that reaches the partner).
  double hop_msg(double bytes, int dist, double sharers, bool back_to_back = false) const {
    const double t = step_msg(bytes, within_node(dist), sharers, back_to_back);
    return within_switch(dist) ? under_switch(t, bytes) : t;
  }
  // A butterfly step (recursive doubling or halving): across nodes, every rank of a node
  // sends off it at once.
  double pair_msg(double bytes, int dist, bool back_to_back = false) const {
    return hop_msg(bytes, dist, s_.ranks_per_node, back_to_back);
  }
  // `bytes` sent to that partner as chunk messages back to back (as stream()).
  double pair_stream(double bytes, double wire_bytes, int dist) const {
    const double k = chunks(bytes);
    return k * pair_msg(wire_bytes / k, dist, true);
  }

  // `steps` rounds that each compute for `compute` seconds and move `transfer` seconds of
  // chunk messages of `wire_chunk` bytes. The chunks of consecutive rounds form one pipeline
  // (a chunk goes on as soon as it is done), so computation and transfer overlap where the
  // link moves such a chunk while the ranks compute (Link::overlap_bytes): the slower of the
  // two sets the pace, the other shows once, in the pipeline's fill. Otherwise they add up.
  double rounds(double steps, double compute, double transfer, double chunks,
                double wire_chunk) const {
    if (chunks > 1 && wire_chunk <= m_.network.overlap_bytes)
      return steps * std::max(compute, transfer) + std::min(compute, transfer) / chunks;
    return steps * (compute + transfer);
  }

  // Codec work on `bytes` uncompressed bytes, chunk by chunk (one call per chunk).
  double c(double bytes) const { return codec(bytes, c_ ? c_->compress : 0); }
  double d(double bytes) const { return codec(bytes, c_ ? c_->decompress : 0); }
  double h(double bytes) const { return codec(bytes, c_ ? c_->combine : 0); }
  double hr(double bytes) const { return codec(bytes, c_ ? c_->combine_raw : 0); }
  double gamma(double bytes) const { return bytes * m_.gamma; }

  // Bytes on the wire for `bytes` quantized at bound / k.
  double wire(double bytes, double k = 1) const { return bytes / s_.ratio.at(k); }

 private:
  double codec(double bytes, double rate) const {
    if (bytes <= 0) return 0;
    if (rate <= 0) return INFINITY;
    return codec_over_ * (chunks(bytes) * (c_ ? c_->call_overhead : 0) + bytes / rate);
  }
  // A message step's wait for peers sharing cores: as measured under the profile's sharing,
  // scaled to the run's; without that measurement, a scheduler slice per extra rank per core.
  double wait() const {
    if (over_ <= 1) return 0;
    const double o_p = m_.codec_oversubscription;
    if (m_.oversubscribed_wait >= 0 && o_p > 1) return m_.oversubscribed_wait * (over_ - 1) / (o_p - 1);
    return (over_ - 1) * kOversubscribedWait;
  }

  const MachineProfile& m_;
  const CodecRates* c_;
  const Scenario& s_;
  int p_;
  double over_;
  double codec_over_;
  double sharers_ = 1;
};

// Each algorithm's cost model, named by its row of COMMPRESS_COLLECTIVE_ALGORITHMS
// (commpress/algorithm.hpp), for the operations the row says it serves; cost_of finds it.
#define COMMPRESS_DECLARE_COST(id, value, name, c_name, literature, ops, compressed,         \
                               homomorphic, cost, runner)                                    \
  double cost(const Terms& t);
COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_DECLARE_COST)
#undef COMMPRESS_DECLARE_COST
using Cost = double (*)(const Terms&);
Cost cost_of(Algorithm a);  // null for Auto

// MPI's own movement (movement_costs.cpp); its bcast, reductions and allgather as Open MPI's
// tuned component runs them (open_mpi_tuned.cpp).
double mpi_movement_cost(const Terms& t);
double mpi_reduction_cost(const Terms& t);
double mpi_bcast_cost(const Terms& t);
double mpi_allgather_cost(const Terms& t);
// Bruck's allgather messages for blocks of `block_wire` bytes (movement_costs.cpp).
double bruck_messages(const Terms& t, double block_wire);
// A binomial tree's levels of `bytes` each, partners 1, 2, 4, ... away, one message a level
// (movement_costs.cpp); back_to_back as Terms::chunk_msg.
double tree_hops(const Terms& t, double bytes, bool back_to_back = false);
double mpi_alltoall_cost(const Terms& t);  // alltoall_costs.cpp
// Whether MPI_Bcast over p ranks of n bytes runs the simulator's chain, its entry for the
// linear broadcast of Open MPI's table (COMMPRESS_SMPI builds; open_mpi_tuned.cpp), which a
// sequence of broadcasts prices member by member (panel_broadcasts.cpp).
bool mpi_bcast_is_chain(int p, double n);
// The members (by distance from the root) the root of that MPI_Bcast sends to itself, for
// the tree of the table whose panels were timed overlapping (the binomial tree): none for the
// others. open_mpi_tuned.cpp.
std::vector<int> mpi_bcast_root_sends(int p, double n);
// One hop of the simulator's chain on link l: the whole n-byte message (open_mpi_tuned.cpp).
double chain_hop(const Link& l, double n);
// Whether that MPI_Bcast runs the simulator's binary tree, its entry for the table's binary
// tree (COMMPRESS_SMPI builds): a heap rooted at rank 0 whatever the root.
bool mpi_bcast_is_heap(int p, double n);
// One MPI_Bcast of n bytes from `root` by the simulator's binary tree over done.size() ranks,
// per_node to a node (`inside` between two of a node, `across` between nodes): `done`, when
// each rank is through what came before, becomes when each is through this one. `rest` is
// the price of the broadcast of the bytes past its last whole segment (open_mpi_tuned.cpp).
void heap_bcast(const Link& across, const Link& inside, int per_node, double n, int root,
                double rest, std::vector<double>& done);
// The bytes of an n-byte heap_bcast past its last whole segment.
double heap_rest(double n);

// Reduce-scatter of an n-byte vector over p ranks by each ring kind (thesis 5.4, 5.5, 6.2);
// with_final_decode adds the owner's decode of its finished block.
double ring_reduce_scatter(const Terms& t, Algorithm ring, double n, int p, bool with_final_decode);

}  // namespace commpress::model::detail
