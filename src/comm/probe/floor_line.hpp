// The line under a set of (bytes, seconds) points: the probe's fit of a link class's
// ping-pong (link_probe.cpp). Each point is the fastest of a few round trips, which on a
// shared machine can all have waited for a core: a point then lies above the link's line,
// never below it. So of the lines t = alpha + beta * bytes (alpha, beta >= 0) that pass on or
// under every point, the one nearest them (the largest sum of its times over the points'
// times): a least-squares line through such a point follows it, and one waited size among
// three moves this one not at all.
#pragma once

#include <span>

#include "commpress/model.hpp"

namespace commpress::comm::probe {

// Points with seconds <= 0 are left out; none left: a zero line.
model::LinkParams floor_line(std::span<const model::Sample> points);

}  // namespace commpress::comm::probe
