#include "linalg/gemm/srumma_tasks.hpp"

#include <algorithm>
#include <utility>

namespace commpress::linalg::detail {

namespace {

// A stored operand seen from the product: which of its stored dimensions is the outer one
// (m for A, n for B) and which is k, and how each is split over the grid.
struct Operand {
  BlockSplit row_split, col_split;  // of the stored matrix
  bool outer_is_rows = true;
  const BlockSplit& outer() const { return outer_is_rows ? row_split : col_split; }
  const BlockSplit& inner() const { return outer_is_rows ? col_split : row_split; }
};

struct Segment {
  int64_t begin = 0, size = 0;
};

// The part of s holding item i (i < s.n).
int part_of(const BlockSplit& s, int64_t i) {
  return int(i / s.block());
}

// [lo, hi) cut at every part boundary of s1 and s2 (empty segments dropped).
std::vector<Segment> cut(int64_t lo, int64_t hi, const BlockSplit& s1, const BlockSplit& s2) {
  std::vector<int64_t> edges{lo, hi};
  for (const BlockSplit* s : {&s1, &s2})
    for (int p = 1; p < s->parts; ++p)
      if (s->offset(p) > lo && s->offset(p) < hi) edges.push_back(s->offset(p));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<Segment> out;
  for (size_t e = 0; e + 1 < edges.size(); ++e) out.push_back({edges[e], edges[e + 1] - edges[e]});
  return out;
}

// The piece of op's stored block covering global outer range o and k range kr.
SrummaPiece locate(const Operand& op, const Segment& o, const Segment& kr, const Grid& g) {
  const int po = part_of(op.outer(), o.begin), pk = part_of(op.inner(), kr.begin);
  const int64_t oo = o.begin - op.outer().offset(po), ko = kr.begin - op.inner().offset(pk);
  SrummaPiece p;
  if (op.outer_is_rows) {
    p.owner = g.rank_of(po, pk);
    p.row0 = oo, p.rows = o.size, p.col0 = ko, p.cols = kr.size;
  } else {
    p.owner = g.rank_of(pk, po);
    p.row0 = ko, p.rows = kr.size, p.col0 = oo, p.cols = o.size;
  }
  return p;
}

}  // namespace

SrummaTaskList srumma_tasks(Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                            const Grid& g) {
  const int pr = g.rows(), pc = g.cols();
  // A is stored m x k (N) or k x m (T); B is stored k x n (N) or n x k (T).
  const Operand a =
      transa == Trans::N ? Operand{{m, pr}, {k, pc}, true} : Operand{{k, pr}, {m, pc}, false};
  const Operand b =
      transb == Trans::N ? Operand{{k, pr}, {n, pc}, false} : Operand{{n, pr}, {k, pc}, true};
  const BlockSplit c_rows{m, pr}, c_cols{n, pc};
  const int64_t r0 = c_rows.offset(g.row()), c0 = c_cols.offset(g.col());
  const auto ms = cut(r0, r0 + c_rows.size(g.row()), a.outer(), a.outer());
  const auto ns = cut(c0, c0 + c_cols.size(g.col()), b.outer(), b.outer());
  const auto ks = cut(0, k, a.inner(), b.inner());

  SrummaTaskList list;
  list.k_segments = int(ks.size());
  if (ms.empty() || ns.empty() || ks.empty()) return list;
  for (const Segment& s : ms) list.rows.push_back({s.begin - r0, s.size});
  for (const Segment& s : ns) list.cols.push_back({s.begin - c0, s.size});
  const int kn = int(ks.size()), start = (g.row() + g.col()) % kn;
  for (int step = 0; step < kn; ++step) {
    const int kt = (start + step) % kn;
    SrummaStep st;
    st.k_index = kt;
    st.kk = ks[size_t(kt)].size;
    for (const Segment& s : ms) st.a.push_back(locate(a, s, ks[size_t(kt)], g));
    for (const Segment& s : ns) st.b.push_back(locate(b, s, ks[size_t(kt)], g));
    list.steps.push_back(std::move(st));
  }
  return list;
}

}  // namespace commpress::linalg::detail
