// All-to-all: each rank sends a different block of `bytes` to every other rank. The
// compressed schedules compress each destination's block once at its owner and decode it
// once at its destination; they differ in how the frames travel (docs/models.md):
//   pairwise exchange  p - 1 steps, step k sends to rank + k and receives from rank - k;
//                      the decode of one block overlaps the next step's transfer.
//   Bruck              ceil(log2 p) steps, step k forwards (unchanged) every held frame
//                      whose distance has bit k set: fewer latencies, about (p/2) log2 p
//                      blocks through each link instead of p - 1.
#include <algorithm>
#include <cmath>

#include "model/bruck_blocks.hpp"
#include "model/cost_terms.hpp"

namespace commpress::model::detail {

namespace {

double bruck_steps(const Terms& t, double block_wire) {
  double sum = 0;
  for (int d = 1; d < t.p(); d *= 2) sum += t.msg(bruck_blocks(t.p(), d) * block_wire);
  return sum;
}

}  // namespace

// MPI's own: the better of its pairwise and Bruck schedules (Open MPI picks by size).
double mpi_alltoall_cost(const Terms& t) {
  const double b = t.scenario().bytes;
  const int p = t.p();
  if (p == 1) return 0;
  return std::min((p - 1) * t.msg(b), bruck_steps(t, b));
}

double pairwise_alltoall_cost(const Terms& t) {
  const double b = t.scenario().bytes;
  const int p = t.p();
  if (p == 1) return 0;
  const double step = t.msg(t.wire(b)), decode = t.d(b);
  return t.c((p - 1) * b) + (p - 1) * std::max(step, decode) + std::min(step, decode);
}

double bruck_alltoall_cost(const Terms& t) {
  const double b = t.scenario().bytes;
  const int p = t.p();
  if (p == 1) return 0;
  return t.c((p - 1) * b) + bruck_steps(t, t.wire(b)) + t.d((p - 1) * b);
}

}  // namespace commpress::model::detail
