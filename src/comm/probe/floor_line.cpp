#include "comm/probe/floor_line.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace commpress::comm::probe {

namespace {

std::vector<model::Sample> timed(std::span<const model::Sample> points) {
  std::vector<model::Sample> pts;
  for (const model::Sample& s : points)
    if (s.seconds > 0 && s.bytes >= 0) pts.push_back(s);
  return pts;
}

// The lowest seconds per byte over the points (INFINITY where none has bytes).
double through_origin(const std::vector<model::Sample>& pts) {
  double origin = INFINITY;
  for (const model::Sample& s : pts)
    if (s.bytes > 0) origin = std::min(origin, s.seconds / s.bytes);
  return origin;
}

// The best line touches two points, or one with a zero slope or intercept: those are the
// candidates (a handful of points: all pairs). Adds the lines through two points whose slope
// `keep` accepts.
template <class Keep>
void add_pair_lines(const std::vector<model::Sample>& pts, Keep keep,
                    std::vector<model::LinkParams>& candidates) {
  for (size_t i = 0; i < pts.size(); ++i)
    for (size_t j = i + 1; j < pts.size(); ++j) {
      if (pts[i].bytes == pts[j].bytes) continue;
      const double beta = (pts[j].seconds - pts[i].seconds) / (pts[j].bytes - pts[i].bytes);
      const double alpha = pts[i].seconds - beta * pts[i].bytes;
      if (keep(alpha, beta)) candidates.push_back({alpha, beta});
    }
}

// Of the candidates `admit` accepts, the one on or under every point and nearest them (the
// largest sum of its times over the points' times); `fallback` where none is.
template <class Admit>
model::LinkParams nearest_under(const std::vector<model::Sample>& pts,
                                const std::vector<model::LinkParams>& candidates, Admit admit,
                                model::LinkParams fallback) {
  model::LinkParams best = fallback;
  double best_sum = -INFINITY;
  for (const model::LinkParams& c : candidates) {
    if (!admit(c)) continue;
    double sum = 0;
    bool under = true;
    for (const model::Sample& s : pts) {
      const double t = c.alpha + c.beta * s.bytes;
      under = under && t <= s.seconds * (1 + 1e-9);
      sum += t / s.seconds;
    }
    if (under && sum > best_sum) best_sum = sum, best = c;
  }
  return best;
}

}  // namespace

model::LinkParams floor_line(std::span<const model::Sample> points) {
  const std::vector<model::Sample> pts = timed(points);
  if (pts.empty()) return {};
  double flat = pts.front().seconds;
  for (const model::Sample& s : pts) flat = std::min(flat, s.seconds);
  std::vector<model::LinkParams> candidates{{flat, 0}};
  if (const double origin = through_origin(pts); origin < INFINITY)
    candidates.push_back({0, origin});
  add_pair_lines(pts, [](double alpha, double beta) { return beta >= 0 && alpha >= 0; },
                 candidates);
  return nearest_under(pts, candidates, [](const model::LinkParams&) { return true; },
                       {flat, 0});
}

model::LinkParams sustained_line(std::span<const model::Sample> points) {
  const std::vector<model::Sample> pts = timed(points);
  if (pts.empty()) return {};
  const double smallest =
      std::min_element(pts.begin(), pts.end(), [](const model::Sample& a, const model::Sample& b) {
        return a.bytes < b.bytes;
      })->bytes;
  // No flat line: large messages cost by their bytes. Where the sizes' times do not rise (all
  // waited alike), the line through zero under every point (always a candidate) is the one.
  const double origin = through_origin(pts);
  if (origin == INFINITY) {
    const auto largest = std::max_element(
        pts.begin(), pts.end(),
        [](const model::Sample& a, const model::Sample& b) { return a.bytes < b.bytes; });
    return {largest->seconds, 0};
  }
  std::vector<model::LinkParams> candidates{{0, origin}};
  add_pair_lines(pts, [](double, double beta) { return beta > 0; }, candidates);
  model::LinkParams best = nearest_under(
      pts, candidates,
      [&](const model::LinkParams& c) { return c.alpha + c.beta * smallest > 0; }, {0, origin});
  best.alpha = std::max(0.0, best.alpha);
  return best;
}

}  // namespace commpress::comm::probe
