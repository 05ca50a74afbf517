// SUMMA's broadcasts without look-ahead (and pdgemm's): one blocking MPI_Bcast per panel
// along each grid line, rooted at the member that owns the panel. A rank goes on to the next
// panel as soon as its own part of this one is done, so along a line the panels overlap, by
// how much depends on the tree (timed member by member and panel by panel in plain MPI under
// the simulator: docs/models.md, "MPI baselines"; bench/results/scale.md).
//
// The simulator's chain (its entry for Open MPI's linear) goes in member order, a whole
// message a hop (chain_hop), after a root other than member 0 has handed member 0 the
// message: so panel i + 1 leaves member 0 once panel i reached its root and crossed back, and
// the panels overlap only by the part of the chain behind the next root. Priced member by
// member, panel after panel: a member has the panel when its predecessor's hop arrives,
// having had it and being through the panel before.
//
// The binomial tree turns with the root and lets every member forward a panel as soon as it
// has it and take the next while its messages are still on the wire (under the protocol
// switch a send returns once posted), so after the first panel the line moves at the pace of
// a root's own sends: the next panel's root is one of its first members, and its node's link
// carries them all at once, those to the members on other nodes beside the node's other
// lines' (shared(), GridLine::across), or those to its own node's members (counted as from a
// node's first member). On a line of two that is one broadcast a panel; on longer ones the
// members further down overlap the next panels. Pacing the binary tree so priced 128-member
// lines at a fortieth of what the simulator took: its binary tree is a heap from member 0
// whatever the root (heap_bcast), priced member by member like the chain. The table's other
// trees stay one broadcast a panel.
#include <algorithm>
#include <vector>

#include "model/cost_terms.hpp"
#include "model/gemm_terms.hpp"

namespace commpress::model::detail {

namespace {

// One panel by the simulator's chain: `done` (when each member is through the panels
// before) becomes when each is through this one.
void chain_panel(const GridLine& g, double x, int root, std::vector<double>& done) {
  const auto link = [&g](int a, int b) -> const Link& {
    return a / g.per_node == b / g.per_node ? g.inside : g.across;
  };
  std::vector<double> next = done;
  const double handed = root == 0 ? done[0] : done[size_t(root)] + link(root, 0).time(x);
  next[0] = std::max(done[0], handed);
  for (int m = 1; m < g.size; ++m) {
    const double arrives = next[size_t(m - 1)] + chain_hop(link(m - 1, m), x);
    next[size_t(m)] = std::max(m == root ? handed : done[size_t(m)], arrives);
  }
  done = next;
}

// Panel after panel, each rooted at the member that owns it, `one` taking `done` through it.
template <typename OnePanel>
double by_member(const GridLine& g, int panels, double count, int every, OnePanel one) {
  if (g.size <= 1 || panels <= 0) return 0;
  std::vector<double> done(size_t(g.size), 0.0);
  for (int i = 0; i < panels; ++i)
    one(std::min(g.size - 1, int(double(i) * every * g.size / std::max(count, 1.0))), done);
  return *std::max_element(done.begin(), done.end());
}

}  // namespace

double GridLine::chain_panels(double x, int panels, double count, int every) const {
  return by_member(*this, panels, count, every,
                   [&](int root, std::vector<double>& done) { chain_panel(*this, x, root, done); });
}

double GridLine::heap_panels(double x, int panels, double count, int every) const {
  const double rest = heap_rest(x) > 0 ? bcast(GemmCodec{}, heap_rest(x)) : 0;
  return by_member(*this, panels, count, every, [&](int root, std::vector<double>& done) {
    heap_bcast(across, inside, per_node, x, root, rest, done);
  });
}

double GridLine::panel_pace(double x) const {
  int off = 0, in = 0;
  for (int d : mpi_bcast_root_sends(size, x)) ++(d >= per_node ? off : in);
  return std::max(off > 0 ? shared(across, off).time(x) : 0.0,
                  in > 0 ? shared(inside, in).time(x) : 0.0);
}

double GridLine::bcast_panels(const GemmCodec& z, double bytes, int panels, double count,
                              int every) const {
  if (size <= 1 || panels <= 0) return 0;
  const double x = z.wire(bytes);
  const double length = length_bcast(z);
  if (mpi_bcast_is_chain(size, x)) return panels * length + chain_panels(x, panels, count, every);
  if (mpi_bcast_is_heap(size, x)) return panels * length + heap_panels(x, panels, count, every);
  const double pace = panel_pace(x);  // 0: a tree not paced
  if (pace <= 0) return panels * bcast(z, bytes);
  return bcast(z, bytes) + (panels - 1) * (length + pace);
}

}  // namespace commpress::model::detail
