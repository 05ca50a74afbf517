#include "comm/probe/floor_line.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace commpress::comm::probe {

model::LinkParams floor_line(std::span<const model::Sample> points) {
  std::vector<model::Sample> pts;
  for (const model::Sample& s : points)
    if (s.seconds > 0 && s.bytes >= 0) pts.push_back(s);
  if (pts.empty()) return {};
  // The best line touches two points, or one with a zero slope or intercept: those are the
  // candidates (a handful of points: all pairs).
  std::vector<model::LinkParams> candidates;
  double flat = pts.front().seconds, through_origin = INFINITY;
  for (const model::Sample& s : pts) {
    flat = std::min(flat, s.seconds);
    if (s.bytes > 0) through_origin = std::min(through_origin, s.seconds / s.bytes);
  }
  candidates.push_back({flat, 0});
  if (through_origin < INFINITY) candidates.push_back({0, through_origin});
  for (size_t i = 0; i < pts.size(); ++i)
    for (size_t j = i + 1; j < pts.size(); ++j) {
      if (pts[i].bytes == pts[j].bytes) continue;
      const double beta = (pts[j].seconds - pts[i].seconds) / (pts[j].bytes - pts[i].bytes);
      const double alpha = pts[i].seconds - beta * pts[i].bytes;
      if (beta >= 0 && alpha >= 0) candidates.push_back({alpha, beta});
    }
  model::LinkParams best{flat, 0};
  double best_sum = -1;
  for (const model::LinkParams& c : candidates) {
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

model::LinkParams sustained_line(std::span<const model::Sample> points) {
  std::vector<model::Sample> pts;
  for (const model::Sample& s : points)
    if (s.seconds > 0 && s.bytes >= 0) pts.push_back(s);
  if (pts.empty()) return {};
  std::sort(pts.begin(), pts.end(),
            [](const model::Sample& a, const model::Sample& b) { return a.bytes < b.bytes; });
  const model::Sample &first = pts.front(), &last = pts.back();  // by size
  // No flat line: large messages cost by their bytes. Where the sizes' times do not rise (all
  // waited alike), the line through zero under every point (always a candidate) is the one.
  std::vector<model::LinkParams> candidates;
  double origin = INFINITY;
  for (const model::Sample& s : pts)
    if (s.bytes > 0) origin = std::min(origin, s.seconds / s.bytes);
  if (origin == INFINITY) return {last.seconds, 0};
  candidates.push_back({0, origin});
  for (size_t i = 0; i < pts.size(); ++i)
    for (size_t j = i + 1; j < pts.size(); ++j) {
      if (pts[i].bytes == pts[j].bytes) continue;
      const double beta = (pts[j].seconds - pts[i].seconds) / (pts[j].bytes - pts[i].bytes);
      if (beta > 0) candidates.push_back({pts[i].seconds - beta * pts[i].bytes, beta});
    }
  model::LinkParams best{0, origin};
  double best_sum = -INFINITY;
  for (const model::LinkParams& c : candidates) {
    auto at = [&](double bytes) { return c.alpha + c.beta * bytes; };
    if (!(at(first.bytes) > 0)) continue;
    double sum = 0;
    bool under = true;
    for (const model::Sample& s : pts) {
      under = under && at(s.bytes) <= s.seconds * (1 + 1e-9);
      sum += at(s.bytes) / s.seconds;
    }
    if (under && sum > best_sum) best_sum = sum, best = c;
  }
  best.alpha = std::max(0.0, best.alpha);
  return best;
}

}  // namespace commpress::comm::probe
