// Re-entrancy: libcommpress calls MPI_* by name, so under LD_PRELOAD its own traffic would
// come back into these wrappers. While a wrapper runs commpress (or MPI_Init/MPI_Finalize
// run), this thread is marked, and every wrapper it reaches goes straight to PMPI_*.
#pragma once

namespace commpress::pmpi {

bool bypassing();

class Bypass {
 public:
  Bypass();
  ~Bypass();
  Bypass(const Bypass&) = delete;
  Bypass& operator=(const Bypass&) = delete;
};

}  // namespace commpress::pmpi

// Exported for libcommpress_scalapack.so: its multiply runs libcommpress, whose MPI traffic
// must not be compressed a second time when both libraries are preloaded. Nested calls count.
extern "C" {
void commpress_mpi_bypass_enter(void);
void commpress_mpi_bypass_leave(void);
}
