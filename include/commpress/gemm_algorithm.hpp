// The distributed multiply's algorithms (include/commpress/linalg.hpp): one enum, shared by the
// multiply (commpress::linalg::GemmAlgorithm) and its cost models
// (commpress::model::GemmAlgorithm), which are aliases of it. What each algorithm is (name,
// literature, codec, grids, cost model, runner) is one row of src/model/gemm_algorithms.def.
#pragma once

#include <cstdint>

namespace commpress {

// Values are stable: they appear in reports and benchmark output, and commpress.h's
// commpress_gemm_algorithm carries the same numbers (ABI).
enum class GemmAlgorithm : uint8_t {
  Auto = 0,       // chosen by the cost models (algorithm, replication, compression)
  Cannon = 1,     // square grids: skew, then sqrt(p) multiply-and-shift steps
  Summa = 2,      // any grid: row and column panel broadcasts with look-ahead
  Srumma = 3,     // owner-computes with one-sided gets (RMA) and shared-memory windows
  Cannon25D = 4,  // c layers, each does 1/c of Cannon's steps; C reduced over the layers
  Summa25D = 5,   // c layers, each does 1/c of SUMMA's panels; C reduced over the layers
  ScaLapack = 6,  // ScaLAPACK's own pdgemm_/psgemm_ on the same data (for comparison)
};

}  // namespace commpress
