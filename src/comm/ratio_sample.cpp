#include "comm/ratio_sample.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace commpress::comm {

namespace {

constexpr size_t kPieceElems = size_t{32} << 10;
constexpr size_t kMaxPieces = 4;
constexpr size_t kMinSample = 4096;
constexpr size_t kRangeProbes = 4096;

struct Piece {
  size_t begin, len;
};

std::vector<Piece> pieces(size_t n) {
  const size_t want = std::min(n, std::max(kMinSample, n / 64));
  const size_t count = std::clamp<size_t>((want + kPieceElems - 1) / kPieceElems, 1, kMaxPieces);
  const size_t len = std::min(kPieceElems, (want + count - 1) / count);
  std::vector<Piece> out;
  for (size_t i = 0; i < count; ++i) {
    const size_t begin = count == 1 ? (n - len) / 2 : i * (n - len) / (count - 1);
    out.push_back({begin, std::min(len, n - begin)});
  }
  return out;
}

void widen(double v, double& lo, double& hi) {
  if (std::isfinite(v)) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

// The range a REL bound is resolved on: the pieces' and that of evenly spaced elements across
// the whole array (the last one included). A REL bound is relative to the array's range, and
// for data that wanders that is far wider than a few pieces' (a random walk's grows with the
// square root of its length), so pieces alone would resolve a tighter bound and estimate a
// smaller ratio than the call will reach.
template <class T>
void input_range(const T* x, size_t n, const std::vector<Piece>& ps, double& lo, double& hi) {
  for (const Piece& p : ps)
    for (size_t i = p.begin; i < p.begin + p.len; ++i) widen(double(x[i]), lo, hi);
  const size_t step = std::max<size_t>(1, n / kRangeProbes);
  for (size_t i = 0; i < n; i += step) widen(double(x[i]), lo, hi);
  widen(double(x[n - 1]), lo, hi);
}

// The ratio of all pieces at one absolute bound (0 = lossless); 0 when the codec fails.
double ratio_at(const codec::Codec& c, const std::byte* data, size_t es, codec::Dtype dtype,
                const std::vector<Piece>& ps, const codec::ErrorBound& bound) {
  thread_local codec::Workspace ws;
  thread_local std::vector<std::byte> frame;
  double raw = 0, packed = 0;
  for (const Piece& p : ps) {
    if (!c.compress(data + p.begin * es, p.len, dtype, bound, frame, ws).ok()) return 0;
    raw += double(p.len * es);
    packed += double(frame.size());
  }
  return packed > 0 ? raw / packed : 0;
}

// The pieces summed two by two (sample_ratio's partial_sums), laid end to end in `out`;
// returns the pieces of `out`.
template <class T>
std::vector<Piece> summed_pieces(const T* x, const std::vector<Piece>& ps, std::vector<T>& out) {
  std::vector<Piece> sums;
  out.clear();
  if (ps.size() == 1) {
    const size_t half = ps[0].len / 2;
    for (size_t i = 0; i < half; ++i) out.push_back(x[ps[0].begin + i] + x[ps[0].begin + half + i]);
    sums.push_back({0, half});
    return sums;
  }
  for (size_t k = 0; k < ps.size(); ++k) {
    const Piece& a = ps[k];
    const Piece& b = ps[(k + 1) % ps.size()];
    const size_t len = std::min(a.len, b.len);
    sums.push_back({out.size(), len});
    for (size_t i = 0; i < len; ++i) out.push_back(x[a.begin + i] + x[b.begin + i]);
  }
  return sums;
}

}  // namespace

RatioSample sample_ratio(const codec::Codec& c, const void* data, size_t n, codec::Dtype dtype,
                         const codec::ErrorBound& bound, double fine_divisor, bool partial_sums) {
  RatioSample s;
  const size_t es = codec::dtype_size(dtype);
  if (n == 0 || data == nullptr || es == 0 || !c.supports(dtype)) return s;
  auto ps = pieces(n);
  const auto* bytes = static_cast<const std::byte*>(data);
  // A REL bound is relative to the inputs' range (partial sums included: they are coded at
  // the inputs' bound), resolved before any sums replace them.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (c.lossy() && bound.mode == codec::BoundMode::rel) {
    if (dtype == codec::Dtype::f32) input_range(static_cast<const float*>(data), n, ps, lo, hi);
    else if (dtype == codec::Dtype::f64) input_range(static_cast<const double*>(data), n, ps, lo, hi);
  }
  thread_local std::vector<float> sums32;
  thread_local std::vector<double> sums64;
  if (partial_sums && n >= 2 && dtype == codec::Dtype::f32) {
    ps = summed_pieces(static_cast<const float*>(data), ps, sums32);
    data = sums32.data();
    bytes = reinterpret_cast<const std::byte*>(sums32.data());
  } else if (partial_sums && n >= 2 && dtype == codec::Dtype::f64) {
    ps = summed_pieces(static_cast<const double*>(data), ps, sums64);
    data = sums64.data();
    bytes = reinterpret_cast<const std::byte*>(sums64.data());
  }
  codec::ErrorBound eb = bound;
  if (c.lossy()) {
    if (bound.mode == codec::BoundMode::lossless || !(bound.value > 0)) return s;
    if (bound.mode == codec::BoundMode::rel) {
      double ends[2] = {lo, hi};
      auto abs = codec::resolve_abs_bound(ends, lo <= hi ? 2 : 0, codec::Dtype::f64, bound);
      if (!abs.ok() || !(*abs > 0)) return s;
      eb = codec::ErrorBound::absolute(*abs);
      s.range = hi - lo;
    }
  } else {
    eb = codec::ErrorBound::lossless();
  }
  s.at_bound = ratio_at(c, bytes, es, dtype, ps, eb);
  if (c.lossy() && fine_divisor > 1)
    s.at_fine = ratio_at(c, bytes, es, dtype, ps, codec::ErrorBound::absolute(eb.value / fine_divisor));
  s.sampled = s.at_bound > 0;
  for (const Piece& p : ps) s.elements += double(p.len);
  return s;
}

}  // namespace commpress::comm
