// Fitting alpha and beta to a ping-pong sweep. Residuals are weighted by 1/t^2 (relative
// error), so the microsecond latencies of small messages count as much as the large ones.
#include <algorithm>
#include <cmath>
#include <vector>

#include "commpress/model.hpp"

namespace commpress::model {

namespace {

double relative_sse(std::span<const Sample> pts, const LinkParams& lp) {
  double sse = 0;
  for (const Sample& s : pts) {
    if (s.seconds <= 0) continue;
    const double r = (lp.alpha + lp.beta * s.bytes - s.seconds) / s.seconds;
    sse += r * r;
  }
  return sse;
}

}  // namespace

LinkParams fit_line(std::span<const Sample> pts) {
  double sw = 0, sm = 0, st = 0, smm = 0, smt = 0;
  for (const Sample& s : pts) {
    if (s.seconds <= 0) continue;
    const double w = 1.0 / (s.seconds * s.seconds);
    sw += w;
    sm += w * s.bytes;
    st += w * s.seconds;
    smm += w * s.bytes * s.bytes;
    smt += w * s.bytes * s.seconds;
  }
  if (sw == 0) return {};
  LinkParams lp;
  const double det = sw * smm - sm * sm;
  if (det > 0) {
    lp.beta = (sw * smt - sm * st) / det;
    lp.alpha = (st - lp.beta * sm) / sw;
  }
  // A physical line: latency and cost per byte are never negative. A negative intercept
  // keeps its slope: it comes from messages that go faster than the link's sustained rate
  // (a shaper's token bucket, caches), and refitting through the origin let exactly those
  // set the cost per byte, which then underpriced every large message.
  if (!(det > 0) || lp.beta < 0) {
    lp.beta = 0;
    lp.alpha = st / sw;
  } else if (lp.alpha < 0) {
    lp.alpha = 0;
  }
  return lp;
}

Link fit_link(std::span<const Sample> points, double switch_bytes) {
  std::vector<Sample> pts(points.begin(), points.end());
  std::sort(pts.begin(), pts.end(), [](const Sample& a, const Sample& b) { return a.bytes < b.bytes; });
  Link link;
  auto split_at = [&](size_t i) {
    std::span<const Sample> all(pts);
    return std::pair{all.first(i), all.subspan(i)};
  };
  auto fit_sides = [&](size_t i) {
    auto [lo, hi] = split_at(i);
    LinkParams e = lo.size() >= 2 ? fit_line(lo) : fit_line(hi);
    LinkParams r = hi.size() >= 2 ? fit_line(hi) : e;
    return std::pair{e, r};
  };
  // A rendezvous message first shakes hands, so it has at least an eager one's latency; its
  // own fit often cannot tell (milliseconds of transfer swamp microseconds of latency, and a
  // negative intercept is clamped to 0), which would make p - 1 messages cost as little as
  // one and hide the difference between a ring and recursive doubling.
  auto floor_latency = [&] {
    link.rendezvous.alpha = std::max(link.rendezvous.alpha, link.eager.alpha);
    return link;
  };
  if (switch_bytes > 0) {
    size_t i = 0;
    while (i < pts.size() && pts[i].bytes < switch_bytes) ++i;
    std::tie(link.eager, link.rendezvous) = fit_sides(i);
    link.switch_bytes = switch_bytes;
    return floor_latency();
  }
  // One line unless a knee fits clearly better (half the error at least).
  const LinkParams one = fit_line(pts);
  link.eager = link.rendezvous = one;
  link.switch_bytes = pts.empty() ? 0 : pts.back().bytes * 2;
  double best = relative_sse(pts, one) * 0.5;
  for (size_t i = 3; i + 3 <= pts.size(); ++i) {
    auto [e, r] = fit_sides(i);
    auto [lo, hi] = split_at(i);
    const double sse = relative_sse(lo, e) + relative_sse(hi, r);
    if (sse < best) {
      best = sse;
      link.eager = e;
      link.rendezvous = r;
      link.switch_bytes = pts[i - 1].bytes + 1;
    }
  }
  return floor_latency();
}

}  // namespace commpress::model
