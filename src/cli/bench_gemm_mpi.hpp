// MPI plumbing of `commpress bench gemm`: MPI initialized for the command's lifetime, a private
// communicator that reports errors instead of aborting, and one verdict agreed on by all ranks.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::cli {

// Initializes MPI unless the caller already did; finalizes what it initialized.
class GemmMpiScope {
 public:
  GemmMpiScope() {
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) {
      MPI_Init(nullptr, nullptr);
      owned_ = true;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~GemmMpiScope() {
    MPI_Comm_free(&comm_);
    if (owned_) MPI_Finalize();
  }
  GemmMpiScope(const GemmMpiScope&) = delete;
  GemmMpiScope& operator=(const GemmMpiScope&) = delete;
  MPI_Comm comm() const { return comm_; }

 private:
  bool owned_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// True on every rank when st failed on any rank; a rank that did not fail itself takes a
// stand-in message, so every rank returns an error together.
inline bool gemm_failed_anywhere(Status& st, MPI_Comm comm) {
  int mine = st.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any && st.ok()) st = Status{ErrorCode::mismatch, "failed on another rank"};
  return any != 0;
}

inline double gemm_median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace commpress::cli
