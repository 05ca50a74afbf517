// The multilevel interpolation of interpolation_nd.hpp walked in runs instead of one value at
// a time: within one pass (a stride s and an axis d) every prediction reads only values of
// earlier passes, so the values of a pass are independent of each other, and a run (values
// of one row, evenly spaced, predicted by the same formula from neighbours at the same
// offset) can be predicted, quantized and reconstructed as arrays the compiler vectorizes.
// The runs come in the visit order of interpolation_visit, value for value, and the
// predictions are the same expressions in T, so the codes and values are bit for bit the
// same as the one-at-a-time walk's (docs/format/szp-e.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "codec/lossy/szp/interpolation_nd.hpp"

namespace commpress::codec::szp {

// How a run's values are predicted from their neighbours s and 3s away along the pass's axis.
// row: a whole row of an x-pass (x = s, 3s, ... below nd), each value by the kind its own x
// takes (row_kind_at): linear or left at the row's ends, cubic between them.
enum class RunKind : uint8_t { zero, left, linear, cubic, row };

// n values at j0, j0 + step, ... (indices in the slab box), each predicted by `kind` from
// neighbours sd and 3 sd before and after it; `stride` is the pass's s (the first value: S);
// `code` is the index of the first value in the visit order (where its code lies); nd: the
// row's length, for a row run.
struct InterpRun {
  size_t j0 = 0, step = 1, n = 0, sd = 0, stride = 1;
  RunKind kind = RunKind::zero;
  size_t code = 0, nd = 0;
};

namespace detail {

inline size_t count_from(size_t beg, size_t step, size_t n) {
  return n > beg ? (n - beg + step - 1) / step : 0;
}

// The formula of the value at coordinate c (an odd multiple of s) along an axis of n_d.
inline RunKind kind_at(size_t c, size_t s, size_t n_d) {
  if (c + s >= n_d) return RunKind::left;
  return c >= 3 * s && c + 3 * s < n_d ? RunKind::cubic : RunKind::linear;
}

// The pass of stride s along axis d: its grid (beg, step per axis) and values per plane.
struct Pass {
  size_t s = 1, sd = 0, beg[3] = {}, step[3] = {}, per_plane = 0;
  int d = 0;
  Pass(const size_t dim[3], const size_t stride[3], size_t s_, int d_) : s(s_), d(d_) {
    for (int e = 0; e < 3; ++e) {
      beg[e] = e == d ? s : 0;
      step[e] = e < d ? s : 2 * s;
    }
    sd = stride[d] * s;
    per_plane = count_from(beg[1], step[1], dim[1]) * count_from(beg[2], step[2], dim[2]);
  }
  size_t size(const size_t dim[3]) const { return count_from(beg[0], step[0], dim[0]) * per_plane; }
};

// Calls f(run) for the runs of pass p whose plane z lies in [za, zb), in visit order; code0
// is the pass's first code. rows: an x-pass row as one row run.
template <class F>
void pass_runs(const size_t dim[3], const Pass& p, size_t za, size_t zb, size_t code0, F& f,
               bool rows) {
  const size_t s = p.s;
  size_t z = p.beg[0];
  if (za > z) z += (za - z + p.step[0] - 1) / p.step[0] * p.step[0];
  for (; z < std::min(zb, dim[0]); z += p.step[0]) {
    size_t code = code0 + (z - p.beg[0]) / p.step[0] * p.per_plane;
    for (size_t y = p.beg[1]; y < dim[1]; y += p.step[1]) {
      const size_t row = (z * dim[1] + y) * dim[2];
      if (p.d < 2) {  // along z or y: one formula for the whole row
        const size_t n = count_from(0, p.step[2], dim[2]);
        f(InterpRun{row, p.step[2], n, p.sd, s, kind_at(p.d == 0 ? z : y, s, dim[p.d]), code});
        code += n;
        continue;
      }
      if (rows) {
        const size_t n = count_from(s, 2 * s, dim[2]);
        if (n) f(InterpRun{row + s, 2 * s, n, p.sd, s, RunKind::row, code, dim[2]});
        code += n;
        continue;
      }
      // Along x: the formula changes at the row's ends; runs of equal formulas.
      for (size_t x = s; x < dim[2];) {
        const RunKind k = kind_at(x, s, dim[2]);
        size_t n = 1;
        if (k == RunKind::cubic) n = (dim[2] - 3 * s - x + 2 * s - 1) / (2 * s);
        f(InterpRun{row + x, 2 * s, n, p.sd, s, k, code});
        code += n;
        x += n * 2 * s;
      }
    }
  }
}

}  // namespace detail

// Calls f(run) for the runs of a slab box, in the visit order of interpolation_visit. With
// by_plane each level's runs come plane by plane instead (the planes z a multiple of its
// stride s): a plane's z-pass runs (z an odd multiple of s), then its y- and its x-pass runs.
// Each reads only values of coarser levels and of the same plane's earlier passes, so the
// values are those of the visit order, while a plane stays in cache for its three passes
// instead of the whole box streaming through memory once per pass. (r.code says where each
// run's codes lie.) With rows, each row of an x-pass comes as one row run (for consumers
// that split it themselves, for_each_kind, or take it whole), instead of up to four: a
// row's end values would otherwise be runs of one value each, each paying a run's overhead.
template <class F>
void interpolation_runs(const Box& b, F f, bool by_plane = false, bool rows = false) {
  const size_t dim[3] = {b.nz, b.ny, b.nx};
  const size_t stride[3] = {b.ny * b.nx, b.nx, 1};
  size_t top = 1;
  while (top < std::max({dim[0], dim[1], dim[2]})) top <<= 1;
  f(InterpRun{0, 1, 1, 0, top, RunKind::zero, 0});
  size_t code = 1;
  for (size_t s = top / 2; s >= 1; s /= 2) {
    const detail::Pass pass[3] = {{dim, stride, s, 0}, {dim, stride, s, 1}, {dim, stride, s, 2}};
    if (by_plane) {
      const size_t code0[3] = {code, code + pass[0].size(dim),
                               code + pass[0].size(dim) + pass[1].size(dim)};
      for (size_t z = 0; z < dim[0]; z += s)
        for (int d = 0; d < 3; ++d) detail::pass_runs(dim, pass[d], z, z + 1, code0[d], f, rows);
      code = code0[2] + pass[2].size(dim);
    } else {
      for (int d = 0; d < 3; ++d) {
        detail::pass_runs(dim, pass[d], 0, dim[0], code, f, rows);
        code += pass[d].size(dim);
      }
    }
    if (s == 1) break;
  }
}

// Calls f(run, i, m) for the values i .. i + m of r, [i0, i0 + m) cut where the formula
// changes: a row run as the runs of one formula it stands for (the same j0, step and code,
// so indices stay the row's), any other run whole.
template <class F>
void for_each_kind(const InterpRun& r, size_t i0, size_t m, F f) {
  if (r.kind != RunKind::row) return f(r, i0, m);
  InterpRun part = r;
  for (size_t i = i0, end = i0 + m; i < end;) {
    part.kind = detail::kind_at(r.stride + i * r.step, r.stride, r.nd);
    size_t k = i + 1;
    while (k < end && detail::kind_at(r.stride + k * r.step, r.stride, r.nd) == part.kind) ++k;
    f(part, i, k - i);
    i = k;
  }
}

// Starts loading the row of an x-pass run r (a row run) a few of its level's planes ahead
// into the cache: the by-plane walk's next planes were last touched a level earlier, long
// out of the cache, and the hardware prefetcher, which follows addresses within a page, does
// not run ahead across a plane's strided passes. (Always inlined: GCC finds a function whose
// only effect is a prefetch free of side effects and drops calls to it.)
template <class T>
[[gnu::always_inline]] inline void prefetch_ahead(const T* v, size_t len, size_t plane, const InterpRun& r) {
  constexpr size_t kPlanes = 4, kLine = 64 / sizeof(T);
  if (r.kind != RunKind::row || r.sd != r.stride) return;
  const size_t at = r.j0 - r.stride + kPlanes * r.stride * plane;
  if (at + r.nd > len) return;
  for (size_t o = 0; o < r.nd; o += kLine) __builtin_prefetch(v + at + o, 1, 2);
}

namespace detail {

template <class T, bool kFiniteOnly>
inline T neighbour(const T* v, ptrdiff_t j) {
  if constexpr (kFiniteOnly) return v[j];
  else return finite_or_zero(v[j]);
}

// pred[i] for values i0 .. i0 + m of run r, from the slab's values v. kStep: the run's step
// when known at compile time (0: r.step), so that the stride-2 runs of the finest level,
// most of the values, and the stride-4 runs of the next vectorize. kFiniteOnly: v holds no NaN or Inf, so no neighbour needs
// finite_or_zero.
template <class T, size_t kStep, bool kFiniteOnly>
inline void predict_run_fixed(const T* v, const InterpRun& r, size_t i0, size_t m, T* pred) {
  const size_t step = kStep ? kStep : r.step, sd = r.sd;
  const T* p = v + r.j0 + i0 * step;
  auto at = [&](size_t i, ptrdiff_t off) {
    return neighbour<T, kFiniteOnly>(p, ptrdiff_t(i * step) + off);
  };
  const ptrdiff_t o1 = ptrdiff_t(sd), o3 = ptrdiff_t(3 * sd);
  switch (r.kind) {
    case RunKind::zero:
      for (size_t i = 0; i < m; ++i) pred[i] = T(0);
      break;
    case RunKind::left:
      for (size_t i = 0; i < m; ++i) pred[i] = at(i, -o1);
      break;
    case RunKind::linear:
      for (size_t i = 0; i < m; ++i) pred[i] = (at(i, -o1) + at(i, o1)) * T(0.5);
      break;
    case RunKind::cubic:
      for (size_t i = 0; i < m; ++i)
        pred[i] = (T(9) * (at(i, -o1) + at(i, o1)) - (at(i, -o3) + at(i, o3))) * T(0.0625);
      break;
    case RunKind::row:  // (predict_run splits it)
      break;
  }
}

template <class T, size_t kStep>
inline void gather_fixed(const T* v, const InterpRun& r, size_t i0, size_t m, T* dst) {
  const size_t step = kStep ? kStep : r.step;
  const T* p = v + r.j0 + i0 * step;
  for (size_t i = 0; i < m; ++i) dst[i] = p[i * step];
}

template <class T, size_t kStep>
inline void scatter_fixed(const T* src, const InterpRun& r, size_t i0, size_t m, T* v) {
  const size_t step = kStep ? kStep : r.step;
  T* p = v + r.j0 + i0 * step;
  for (size_t i = 0; i < m; ++i) p[i * step] = src[i];
}

}  // namespace detail

// dst[i] = v[position of value i0 + i of run r], i < m.
template <class T>
inline void gather_run(const T* v, const InterpRun& r, size_t i0, size_t m, T* dst) {
  if (r.step == 2) detail::gather_fixed<T, 2>(v, r, i0, m, dst);
  else if (r.step == 4) detail::gather_fixed<T, 4>(v, r, i0, m, dst);
  else detail::gather_fixed<T, 0>(v, r, i0, m, dst);
}

// v[position of value i0 + i of run r] = src[i], i < m.
template <class T>
inline void scatter_run(const T* src, const InterpRun& r, size_t i0, size_t m, T* v) {
  if (r.step == 2) detail::scatter_fixed<T, 2>(src, r, i0, m, v);
  else if (r.step == 4) detail::scatter_fixed<T, 4>(src, r, i0, m, v);
  else detail::scatter_fixed<T, 0>(src, r, i0, m, v);
}

template <class T, bool kFiniteOnly>
inline void predict_run(const T* v, const InterpRun& r, size_t i0, size_t m, T* pred) {
  if (r.kind == RunKind::row)
    return for_each_kind(r, i0, m, [&](const InterpRun& part, size_t i, size_t k) {
      predict_run<T, kFiniteOnly>(v, part, i, k, pred + (i - i0));
    });
  if (r.step == 2) detail::predict_run_fixed<T, 2, kFiniteOnly>(v, r, i0, m, pred);
  else if (r.step == 4) detail::predict_run_fixed<T, 4, kFiniteOnly>(v, r, i0, m, pred);
  else detail::predict_run_fixed<T, 0, kFiniteOnly>(v, r, i0, m, pred);
}

// Calls f(j, predict, s) for every value of a slab box in the visit order, one at a time (j
// its index in the slab, s its stride: S for the first value), predict(v) giving its
// prediction from the slab's values v: for encoders that cannot take a pass's values
// together (szp-e's shaped payload, whose raw blocks are chosen as the codes come).
template <class T, class F>
void interpolation_visit(const Box& b, F f) {
  interpolation_runs(b, [&](const InterpRun& r) {
    const ptrdiff_t o1 = ptrdiff_t(r.sd), o3 = ptrdiff_t(3 * r.sd);
    for (size_t i = 0; i < r.n; ++i) {
      const size_t j = r.j0 + i * r.step;
      const RunKind kind = r.kind;
      f(j, [=](const T* v) {
        const T* p = v + j;
        if (kind == RunKind::zero) return T(0);
        const T a1 = detail::neighbour<T, false>(p, -o1);
        if (kind == RunKind::left) return a1;
        const T b1 = detail::neighbour<T, false>(p, o1);
        if (kind == RunKind::linear) return (a1 + b1) * T(0.5);
        const T a3 = detail::neighbour<T, false>(p, -o3);
        const T b3 = detail::neighbour<T, false>(p, o3);
        return (T(9) * (a1 + b1) - (a3 + b3)) * T(0.0625);
      }, r.stride);
    }
  });
}

}  // namespace commpress::codec::szp
