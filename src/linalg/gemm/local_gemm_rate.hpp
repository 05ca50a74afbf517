// Flop/s of one rank's local n^3 product with the BLAS threads the distributed multiply sets:
// measured by `commpress profile` (n = 1024) and, where no profile is given, added to the
// first collective's probe (n = 512; comm/probe/quick_probe.hpp's extension) so the
// multiply's models price local work as it runs here.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace commpress::linalg::detail {

// The fastest of reps runs after a warm-up (0 where BLAS failed); this rank's alone.
template <class T>
double local_gemm_rate(MPI_Comm comm, int64_t n, int reps);

}  // namespace commpress::linalg::detail
