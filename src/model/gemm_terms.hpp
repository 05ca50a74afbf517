// The pieces every gemm formula is written in: the largest local blocks of a grid, broadcasts
// and sums over a group of ranks, and the codec's work on a block. Internal to src/model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "commpress/gemm_model.hpp"

namespace commpress::model::detail {

// ceil(n / parts): the largest part of the block distribution (what the slowest rank holds).
inline double largest_part(int64_t n, int parts) {
  return n > 0 && parts > 0 ? double((n + parts - 1) / parts) : 0.0;
}

inline int levels(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

// MPI_Bcast of x bytes over P ranks as the triangular solvers' model prices it: the better of
// a binomial tree, ceil(log2 P) T(x), and van de Geijn's scatter + ring allgather,
// sum_j T(x / 2^j) + (P - 1) T(x / P) (the multiplies' lines use GridLine::bcast).
inline double bcast_time(const Link& link, double x, int P) {
  if (P <= 1) return 0;
  const int L = levels(P);
  const double binomial = L * link.time(x);
  double scatter = 0;
  for (int j = 1; j <= L; ++j) scatter += link.time(x / double(1 << j));
  return std::min(binomial, scatter + (P - 1) * link.time(x / P));
}

// A broadcast of one block as the algorithms send it: raw, or its frame's length then the
// frame (compressed once by the root; the receivers' decoding is charged separately).
inline double block_bcast(const Link& link, const GemmCodec& c, double x, int P) {
  if (P <= 1) return 0;
  if (!c.enabled) return bcast_time(link, x, P);
  return bcast_time(link, 8, P) + bcast_time(link, c.wire(x), P);
}

// MPI_Ibcast's tree as the MPI library builds it. Open MPI's libnbc (with its default
// coll_libnbc_ibcast_skip_dt_decision) sends from the root to every rank on communicators of
// up to 4 ranks and runs a binomial tree of whole messages on larger ones; SMPI's MPI_Ibcast
// is always that flat tree. MPI_Bcast's trees (the tuned component's table) differ from both,
// so a broadcast overlapped with work is priced apart from a blocking one.
enum class IbcastTree { flat, binomial };
inline IbcastTree ibcast_tree(int ranks) {
#ifdef COMMPRESS_SMPI
  (void)ranks;
  return IbcastTree::flat;
#else
  return ranks <= 4 ? IbcastTree::flat : IbcastTree::binomial;
#endif
}

// MPI_Reduce (sum) of x bytes over P ranks: the better of a binomial tree,
// ceil(log2 P)(T(x) + x gamma), and Rabenseifner's halving reduce-scatter + binomial gather,
// sum_j (2 T(x / 2^j) + (x / 2^j) gamma).
inline double reduce_time(const Link& link, double gamma, double x, int P) {
  if (P <= 1) return 0;
  const int L = levels(P);
  const double binomial = L * (link.time(x) + x * gamma);
  double halving = 0;
  for (int j = 1; j <= L; ++j) {
    const double part = x / double(1 << j);
    halving += 2 * link.time(part) + part * gamma;
  }
  return std::min(binomial, halving);
}

// A grid line as the network sees it: `size` ranks `stride` apart in rank order (a grid row:
// 1; a column: the row's length; a fiber: a layer's ranks) on nodes of s.node_size
// consecutive ranks. Its members sit per_node to a node on `nodes` nodes. A reduction's trees
// over consecutive members (binomial, halving) first move between the nodes and then inside
// them, so it is one over the line's nodes plus one over a node's members; MPI's own bcast and
// allreduce go by the collectives' model of Open MPI (grid_line_mpi.cpp). Between nodes a
// message shares its node's one link: every rank of the grid is on one line of each kind, and
// the node's other lines of that kind (node_size / per_node of them) take the same step at
// the same moment, so their bytes pass the link with its own, at the link's sustained rate
// (the collectives' Terms::step_msg does the same).
struct GridLine {
  Link inside;  // between two members on one node
  Link across;  // between nodes, shared with the node's other lines
  int per_node = 1, nodes = 1;
  int size = 1;  // members
  // Nodes from one of the line's nodes to the next, and the network's switches
  // (GemmScenario::switch_link, shared as `across`): a line whose nodes all sit under one
  // switch crosses on switch_link (`across` is then it); on a longer one MPI's butterflies
  // still pair members under one switch (Terms::within_switch).
  int node_stride = 1;
  std::optional<Link> switch_link;
  int switch_nodes = 0;

  bool crosses() const { return nodes > 1; }
  // One message to another member (a shift to the neighbour, a skew straight to its place):
  // on a line over several nodes the slowest is one between nodes.
  const Link& hop_link() const { return crosses() ? across : inside; }
  double hop(double bytes) const { return hop_link().time(bytes); }
  double hop_latency(double bytes) const {
    const Link& l = hop_link();
    return (bytes >= l.switch_bytes ? l.rendezvous : l.eager).alpha;
  }
  // MPI_Bcast and MPI_Allreduce as Open MPI's table runs them on the line (grid_line_mpi.cpp).
  double bcast(const GemmCodec& z, double bytes) const;
  // A compressed piece's length (8 bytes), which goes first by an MPI_Bcast of its own so
  // the receivers can size their buffers: 0 uncompressed.
  double length_bcast(const GemmCodec& z) const;
  double allreduce(double bytes) const;
  double ibcast(const GemmCodec& z, double bytes) const;  // MPI_Ibcast's (ibcast_tree)
  // `panels` MPI_Bcasts one after the other, the i-th rooted at the member that owns panel
  // i * every of `count` (panel_broadcasts.cpp): SUMMA without look-ahead.
  double bcast_panels(const GemmCodec& z, double bytes, int panels, double count,
                      int every) const;
  // Those broadcasts of x bytes by the simulator's chain (its linear MPI_Bcast).
  double chain_panels(double x, int panels, double count, int every) const;
  // ... and by the simulator's binary tree (heap_bcast).
  double heap_panels(double x, int panels, double count, int every) const;
  // What each panel of x bytes after the first adds by a tree that turns with the root (0
  // for the trees not priced so).
  double panel_pace(double x) const;
  double reduce(double gamma, double bytes) const;
};

// A link that n senders share: each message waits for the other n - 1 messages' bytes, at
// the rate its size class flows at (Link::sharing_beta; and, on a link shared already, for
// what those wait for too).
inline Link shared(const Link& l, double n) {
  Link out = l;
  out.sharers = std::max(1.0, n) * l.sharers;
  return out;
}

// The line's place among the network's switches: its nodes `stride` ranks apart, r a node.
inline GridLine under_switches(GridLine g, const GemmScenario& s, int stride, int r) {
  if (!s.switch_link || s.switch_nodes <= 1 || g.nodes <= 1) return g;
  g.node_stride = std::max(1, stride / std::max(1, r));
  g.switch_nodes = s.switch_nodes;
  g.switch_link = *s.switch_link;
  g.switch_link->sharers = g.across.sharers;
  // Lines tile the nodes in order, so where the switch's nodes are a multiple of a line's
  // span every line sits under one switch.
  if (s.switch_nodes % (g.nodes * g.node_stride) == 0) g.across = *g.switch_link;
  return g;
}

inline GridLine grid_line(const GemmScenario& s, int size, int stride) {
  size = std::max(1, size);
  GridLine g;
  g.inside = g.across = s.link;
  g.nodes = g.size = size;
  const int r = s.node_size, p = s.grid.size();
  if (size == 1) return g;
  // A rank a node, or no nodes known (every message on the network, unshared).
  if (r <= 1) return under_switches(g, s, stride, 1);
  if (p % r != 0) return g;
  g.inside = s.node_link;
  if (p <= r) {  // the whole grid on one node
    g.per_node = size;
    g.nodes = 1;
    return g;
  }
  g.per_node = stride >= r ? 1 : std::clamp(r / stride, 1, size);
  g.nodes = (size + g.per_node - 1) / g.per_node;
  g.across = shared(s.link, double(r) / g.per_node);
  return under_switches(g, s, stride, r);
}

// Two transfers posted together, each on its line: one after the other where both take the
// same link (both between nodes, or both inside one), side by side where they take different
// ones (a row inside the node while the column crosses the network).
inline double side_by_side(const GridLine& a, double ta, const GridLine& b, double tb) {
  return a.crosses() == b.crosses() ? ta + tb : std::max(ta, tb);
}

// Two single messages posted together, A's along its row and B's along its column (Cannon's
// shifts and skew): on different links side by side; on the same link both are in flight at
// once, so their latencies overlap and their bytes queue.
inline double shift_pair(const GridLine& row, double a, const GridLine& col, double b) {
  const double ta = row.hop(a), tb = col.hop(b);
  if (row.crosses() != col.crosses()) return std::max(ta, tb);
  return ta + tb - std::min(row.hop_latency(a), col.hop_latency(b));
}

// The flat tree's root posts every copy at once: those off its node share the node's link,
// each waiting for the others' bytes (shared(); the link is shared already with the node's
// other lines, whose roots send at the same moment: a panel's owners are one grid row or
// column), those inside go side by side. The binomial
// tree goes over the nodes, then inside each. A compressed piece's length still goes by
// MPI_Bcast (the receivers size their buffers before the frame is posted).
inline double GridLine::ibcast(const GemmCodec& z, double bytes) const {
  if (size <= 1) return 0;
  const auto tree = [&](double x) {
    if (ibcast_tree(size) == IbcastTree::binomial)
      return levels(nodes) * across.time(x) + levels(per_node) * inside.time(x);
    return std::max(shared(across, size - per_node).time(x), per_node > 1 ? inside.time(x) : 0.0);
  };
  if (!z.enabled) return tree(bytes);
  return length_bcast(z) + tree(z.wire(bytes));
}
// What a call agrees across its grid besides the multiply (gemm_agreements.cpp).
double agreements_time(const GemmScenario& s, bool layers_outcome);

inline double GridLine::reduce(double gamma, double bytes) const {
  return reduce_time(across, gamma, bytes, nodes) + reduce_time(inside, gamma, bytes, per_node);
}

// The grid's lines: rows (stride 1), columns (stride cols), fibers (stride rows x cols).
inline GridLine row_line(const GemmScenario& s) { return grid_line(s, s.grid.cols, 1); }
inline GridLine col_line(const GemmScenario& s) { return grid_line(s, s.grid.rows, s.grid.cols); }
inline GridLine fiber_line(const GemmScenario& s) {
  return grid_line(s, s.grid.layers, s.grid.rows * s.grid.cols);
}

// The largest local blocks of one pr x pc layer, in elements.
struct LayerBlocks {
  double mb, nb;  // rows of C (and op(A)), columns of C (and op(B))
  double ka;      // op(A)'s k columns per grid column
  double kb;      // op(B)'s k rows per grid row
};
inline LayerBlocks layer_blocks(const GemmScenario& s) {
  return {largest_part(s.m, s.grid.rows), largest_part(s.n, s.grid.cols),
          largest_part(s.k, s.grid.cols), largest_part(s.k, s.grid.rows)};
}

inline double product_time(const GemmScenario& s, double m, double n, double k) {
  return 2.0 * m * n * k / s.flops;
}

// SUMMA's panels: total count over k and their mean width (the bandwidth terms are exact
// with the mean; only a partial last panel's extra latency is rounded away).
struct Panels {
  double count = 0, width = 0, widest = 0;
};
inline Panels summa_panels(const GemmScenario& s) {
  if (s.k <= 0) return {};
  const int64_t w = s.panel > 0 ? std::min(s.panel, s.k) : default_summa_panel(s.k, s.grid);
  const double count = double((s.k + w - 1) / w);
  return {count, double(s.k) / count, double(w)};
}

// A replicated layer's partial C block (the 2.5D algorithms), 0 on one layer.
inline double partial_c_bytes(const GemmScenario& s) {
  if (s.grid.layers <= 1) return 0;
  const LayerBlocks b = layer_blocks(s);
  return b.mb * b.nb * s.elem_size;
}

// Every algorithm's cost model, as its table row names them (gemm_cannon.cpp, gemm_summa.cpp,
// gemm_srumma.cpp): predicted seconds, and extra bytes per rank (the largest over the ranks:
// what GemmPlan::memory_bytes reports and what Auto holds against the memory cap).
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  double model_time(const GemmScenario& s);                                                    \
  double model_memory(const GemmScenario& s);
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM

}  // namespace commpress::model::detail
