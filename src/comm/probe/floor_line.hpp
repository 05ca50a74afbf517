// The lines under a set of (bytes, seconds) points: the probe's fit of a link class's
// ping-pong (link_probe.cpp). Each point is the fastest of a few round trips, which on a
// shared machine can all have waited for a core: a point then lies above the link's line,
// never below it. So the probe takes lines that pass on or under every point: a least-squares
// line through such a point follows it, and one waited size among three moves these not at
// all (floor_line_through_largest: unless it is the largest).
#pragma once

#include <span>

#include "commpress/model.hpp"

namespace commpress::comm::probe {

// For latency-bound sizes: of the lines t = alpha + beta * bytes (alpha, beta >= 0) on or
// under every point, the one nearest them (the largest sum of its times over the points'
// times). Points with seconds <= 0 are left out; none left: a zero line.
model::LinkParams floor_line(std::span<const model::Sample> points);

// For bandwidth-bound sizes, where what matters is the cost per byte of large messages: the
// line through the largest size's point, as steep as it can be and still pass on or under the
// others (the largest slope from a smaller size's point to it); a negative intercept is
// raised to 0, the slope kept (as model::fit_line). Where a link's first bytes go faster than
// its sustained rate (a shaper's token bucket), the sustained line meets zero bytes below
// zero seconds, and the nearest line under the points with a latency >= 0 is flatter than
// the link; a waited largest size makes this one steeper (the link priced slow).
model::LinkParams floor_line_through_largest(std::span<const model::Sample> points);

}  // namespace commpress::comm::probe
