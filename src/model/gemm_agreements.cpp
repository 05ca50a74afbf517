// What a multiply's call agrees across its grid besides the multiply itself
// (linalg/gemm: gemm.cpp, gemm_bounds.cpp), each a small allreduce: the arguments, the plan
// and the outcome (2.5D Cannon's layers agree theirs too); with a lossy codec C's bound, a sum
// along each operand's grid lines and then the largest over the grid, and with a REL bound
// each operand's range. On a slow network these latencies are a fixed cost of every call.
//
// Each is priced as the collectives price their outcome agreement (predict.cpp): MPI's own
// allreduce as Open MPI's table runs it (open_mpi_tuned.cpp), on the line's nodes
// (GridLine::allreduce).
#include "model/gemm_terms.hpp"

namespace commpress::model::detail {

namespace {
constexpr double kAgreementBytes = 16;
}  // namespace

double agreements_time(const GemmScenario& s, bool layers_outcome) {
  const GridLine all = grid_line(s, s.grid.size(), 1);
  const bool bound = s.codec.enabled && s.codec.lossy;
  const int count =
      3 + (layers_outcome ? 1 : 0) + (bound ? 2 : 0) + (bound && s.codec.relative ? 2 : 0);
  double t = count * all.allreduce(kAgreementBytes);
  if (bound) t += row_line(s).allreduce(kAgreementBytes) + col_line(s).allreduce(kAgreementBytes);
  return t;
}

}  // namespace commpress::model::detail
