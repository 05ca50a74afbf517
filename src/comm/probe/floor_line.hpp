// The lines under a set of (bytes, seconds) points: the probe's fit of a link class's
// ping-pong (link_probe.cpp). Each point is the fastest of a few round trips, which on a
// shared machine can all have waited for a core: a point then lies above the link's line,
// never below it. So the probe takes lines that pass on or under every point: a least-squares
// line through such a point follows it, and one waited size among three moves these not at
// all.
#pragma once

#include <span>

#include "commpress/model.hpp"

namespace commpress::comm::probe {

// For latency-bound sizes: of the lines t = alpha + beta * bytes (alpha, beta >= 0) on or
// under every point, the one nearest them (the largest sum of its times over the points'
// times). Points with seconds <= 0 are left out; none left: a zero line.
model::LinkParams floor_line(std::span<const model::Sample> points);

// For bandwidth-bound sizes, where what matters is the cost per byte of large messages: as
// floor_line, but with beta > 0 (where the times do not rise, the line through zero under
// every point), and a line may meet zero bytes below zero seconds as long as it gives the
// smallest size a time above zero; its intercept is then raised to 0, the slope kept (as
// model::fit_line). Where a link's first bytes go faster than its sustained rate (a shaper's
// token bucket), its sustained line has such an intercept, and floor_line comes out flatter
// than the link (4.9 ns/B where the link takes 8, under scripts/netsim at 1 Gbit/s). A waited
// largest size (the one with the fewest round trips) cannot set the line: the line through it
// and a smaller size passes over the third or gives the smallest a negative time.
model::LinkParams sustained_line(std::span<const model::Sample> points);

}  // namespace commpress::comm::probe
