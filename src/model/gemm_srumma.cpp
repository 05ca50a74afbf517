// SRUMMA (Krishnan & Nieplocha): every rank computes its own C block from the pieces of
// op(A)'s block row and op(B)'s block column, one task per segment of k between the owner
// boundaries of both splits. Pieces another rank of the same shared-memory domain owns are
// read in place (free, after one copy of the rank's own blocks into the shared window); the
// others are fetched with one get each over the link. Shared-memory tasks run first, the
// remote fetches are double-buffered behind the products. The slowest rank sets the time.
// The model charges no extra for RMA synchronization or for several ranks fetching from one
// owner at once (each owner's link carries as much out as its readers' links carry in).
//
// The transposed cases fetch the same volumes from other owners; the model charges the
// non-transposed owners.
//
// Memory: the copy of the rank's own blocks into the shared window (when the domain has other
// ranks) and two buffers for the largest task's remote pieces (one without overlap, none when
// every piece is inside the domain).
#include <algorithm>
#include <utility>
#include <vector>

#include "model/gemm_terms.hpp"

namespace commpress::model {

namespace {

struct RankCost {
  double comp = 0, comm = 0, local_comp = 0, first = 0, last = 0;
  double largest_fetch = 0;  // bytes of the largest task's remote pieces
  int fetched_tasks = 0;
};

// One task's segment of k: its width and the owners of its pieces (op(A)'s grid column,
// op(B)'s grid row). The same for every rank, so computed once.
struct Segment {
  double width;
  int a_col, b_row;
};

std::vector<Segment> segments(int64_t k, int pr, int pc) {
  std::vector<Segment> out;
  const int64_t bc = (k + pc - 1) / pc, br = (k + pr - 1) / pr;
  for (int64_t k0 = 0; k0 < k;) {
    const int64_t k1 = std::min({k, (k0 / bc + 1) * bc, (k0 / br + 1) * br});
    out.push_back({double(k1 - k0), int(k0 / bc), int(k0 / br)});
    k0 = k1;
  }
  return out;
}

double part(int64_t n, int parts, int i) {
  const int64_t blk = (n + parts - 1) / parts;
  return double(std::clamp<int64_t>(n - i * blk, 0, blk));
}

}  // namespace

SrummaCost srumma_cost(const GemmScenario& s) {
  SrummaCost out;
  const int pr = s.grid.rows, pc = s.grid.cols, p = pr * pc;
  if (s.m <= 0 || s.n <= 0 || s.k <= 0) return out;
  const int domain = std::max(1, s.ranks_per_node);
  const double e = s.elem_size;
  const std::vector<Segment> segs = segments(s.k, pr, pc);
  double buffer_bytes = 0;
  for (int i = 0; i < pr; ++i) {
    for (int j = 0; j < pc; ++j) {
      const int me = i * pc + j;
      const double mb = part(s.m, pr, i), nb = part(s.n, pc, j);
      if (mb <= 0 || nb <= 0) continue;
      RankCost r;
      const int my_domain = me / domain;
      auto same_domain = [&](int owner) {
        return domain == 1 ? owner == me : owner / domain == my_domain;
      };
      r.comp = detail::product_time(s, mb, nb, double(s.k));
      if (domain > 1 && p > 1)  // own blocks copied into the shared window
        r.comp += (mb * part(s.k, pc, j) + part(s.k, pr, i) * nb) * e * s.gamma;
      for (const Segment& seg : segs) {
        const double w = seg.width;
        const int a_owner = i * pc + seg.a_col, b_owner = seg.b_row * pc + j;
        double fetch = 0, fetched = 0;
        for (const auto& [owner, bytes] : {std::pair{a_owner, mb * w * e}, {b_owner, w * nb * e}}) {
          if (same_domain(owner)) continue;
          fetch += s.link.time(bytes);
          fetched += bytes;
        }
        if (fetched > 0) ++r.fetched_tasks;
        r.largest_fetch = std::max(r.largest_fetch, fetched);
        const double product = detail::product_time(s, mb, nb, w);
        if (fetch > 0) {
          // Which remote task comes first or last depends on the diagonal order: charge the
          // largest.
          r.comm += fetch;
          r.first = std::max(r.first, fetch);
          r.last = std::max(r.last, product);
        } else {
          r.local_comp += product;
        }
      }
      SrummaCost c;
      c.comp = r.comp;
      c.comm = r.comm;
      c.omega = r.comm > 0 ? std::max(0.0, 1 - r.comp / r.comm) : 0;
      if (s.overlap) {
        // Products hide the fetches and the other way round, except the first fetch (behind
        // the shared-memory products only) and the product of the last fetched task.
        c.first_fetch = std::max(0.0, r.first - r.local_comp);
        c.seconds = std::max(r.comp + c.first_fetch, r.comm + r.last);
      } else {
        c.seconds = r.comp + r.comm;
      }
      // Fetch buffers: two (one without overlap), never more than there are fetched tasks.
      const int buffers = std::min(s.overlap ? 2 : 1, r.fetched_tasks);
      buffer_bytes = std::max(buffer_bytes, buffers * r.largest_fetch);
      if (c.seconds > out.seconds) out = c;
    }
  }
  out.fetch_buffer_bytes = buffer_bytes;
  return out;
}

namespace detail {

double srumma_time(const GemmScenario& s) { return srumma_cost(s).seconds; }

double srumma_memory(const GemmScenario& s) {
  const LayerBlocks b = layer_blocks(s);
  const int domain = std::max(1, s.ranks_per_node);
  const double own =
      domain > 1 && s.grid.size() > 1 ? (b.mb * b.ka + b.kb * b.nb) * s.elem_size : 0;
  return own + srumma_cost(s).fetch_buffer_bytes;
}

}  // namespace detail

}  // namespace commpress::model
