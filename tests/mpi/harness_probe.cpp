// Fails on rank 1 only, and only when COMMPRESS_MPI_PROBE=1. ctest runs it that way and
// expects rank 0's output to carry the tagged failure and the failing verdict: the end-to-end
// check that one rank's failure is not lost. Run by hand without the variable, it passes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "mpi/mpi_harness.hpp"

namespace cmpi = commpress::testing::mpi;

TEST(HarnessProbe, FailsOnRankOneOnly) {
  const char* probe = std::getenv("COMMPRESS_MPI_PROBE");
  if (probe && std::strcmp(probe, "1") == 0 && cmpi::rank() == 1)
    ADD_FAILURE() << "injected failure from rank 1";
  // A collective after the failure: the other ranks must not be left waiting.
  EXPECT_TRUE(cmpi::any_rank(true));
}
