// The Grid of a BLACS context, kept between calls of the ScaLAPACK-compatible entry points:
// building one splits five communicators, which a loop of small multiplies should not pay on
// every call.
#pragma once

#include "commpress/linalg.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg::detail {

// Grid::from_blacs(context), from the cache when every process of the context still has a
// Grid for the same processes (decided together: one reduction over the context).
Result<Grid> grid_of_context(int context);

}  // namespace commpress::linalg::detail
