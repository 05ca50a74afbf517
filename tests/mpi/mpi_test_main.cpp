// main() for MPI test executables (target commpress_mpi_test_main).
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "mpi/mpi_harness.hpp"

namespace cmpi = commpress::testing::mpi;

int main(int argc, char** argv) {
  // COMMPRESS_TEST_MPI_THREAD=multiple: the nonblocking tests' progress threads need it.
  const char* level = std::getenv("COMMPRESS_TEST_MPI_THREAD");
  if (level && std::string_view(level) == "multiple") {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  ::testing::InitGoogleTest(&argc, argv);
  const int me = cmpi::rank();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (me != 0) delete listeners.Release(listeners.default_result_printer());
  // Owned by gtest once appended; kept as a pointer to read it after the run.
  auto* collector = new cmpi::FailureCollector;
  listeners.Append(collector);

  int local_rc = RUN_ALL_TESTS();
  bool local_failed = local_rc != 0 || !collector->failures().empty();
  auto failures = cmpi::gather_failures(collector->failures());
  bool any_failed = cmpi::any_rank(local_failed);
  if (me == 0) {
    for (const auto& f : failures)
      std::fprintf(stderr, "[rank %d] FAILED %s\n", f.rank, f.text.c_str());
    if (any_failed)
      std::fprintf(stderr, "[mpi] %zu failure(s) across %d rank(s)\n", failures.size(),
                   cmpi::size());
    else
      std::printf("[mpi] all tests passed on all %d rank(s)\n", cmpi::size());
    std::fflush(stdout);
    std::fflush(stderr);
  }
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
