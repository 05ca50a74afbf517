#include "linalg/gemm/compressed_operands.hpp"

namespace commpress::linalg::detail {

bool summa_compresses(int ranks_along, int layers) { return ranks_along > 1 || layers > 1; }

CompressedOperands compressed_operands(GemmAlgorithm algorithm, const Grid& g) {
  switch (algorithm) {
    case GemmAlgorithm::Summa:
    case GemmAlgorithm::Summa25D:  // A's panels along grid rows, B's along grid columns
      return {summa_compresses(g.cols(), g.layers()), summa_compresses(g.rows(), g.layers())};
    case GemmAlgorithm::Cannon:
    case GemmAlgorithm::Cannon25D:  // both encoded once before the skew, even on one rank
      return {true, true};
    case GemmAlgorithm::Srumma:     // raw one-sided gets
    case GemmAlgorithm::ScaLapack:  // ScaLAPACK's own raw broadcasts
    case GemmAlgorithm::Auto:
      break;
  }
  return {};
}

}  // namespace commpress::linalg::detail
