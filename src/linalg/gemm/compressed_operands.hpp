// Which inputs a multiply actually sends through the call's codec. The others travel raw or
// not at all and stay exact, so the report names a codec and a bound from them only.
#pragma once

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

struct CompressedOperands {
  bool a = false, b = false;
  bool any() const { return a || b; }
};

// SUMMA compresses a panel only where it travels: along a grid row or column of more than one
// rank, or to other layers.
bool summa_compresses(int ranks_along, int layers);

// For the algorithm that ran on g with a codec other than "none" (same answer on every rank).
CompressedOperands compressed_operands(GemmAlgorithm algorithm, const Grid& g);

}  // namespace commpress::linalg::detail
