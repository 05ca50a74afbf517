// One SRUMMA call on one rank: opens the memory its pieces come from, works through its task
// list (in-place tasks first, then fetched ones, double-buffered) and closes again.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/srumma_tasks.hpp"
#include "linalg/gemm/srumma_windows.hpp"

namespace commpress::linalg::detail {

template <class T>
class SrummaExec {
 public:
  // a, b: every grid rank's block of stored A and B (shape and caller ld).
  SrummaExec(const GemmCall<T>& call, SrummaTaskList list, std::vector<SrummaBlock> a,
             std::vector<SrummaBlock> b);
  Status open(int pretend);  // collective over the grid (pretend: ranks per pretend node)
  Status run();              // local work and one-sided gets only
  Status close();            // collective over the grid

  uint64_t fetched_bytes() const { return fetched_; }
  uint64_t memory_bytes() const;

 private:
  struct Source {
    const T* data = nullptr;
    int64_t ld = 1;
  };
  bool in_domain(int owner) const;
  Source in_place(const SrummaPiece& p, bool is_a) const;
  Source source(const SrummaPiece& p, bool is_a, int slot);
  Status fetch(const SrummaTask& t, int slot);
  Status wait(int slot);
  void multiply(const SrummaTask& t, Source a, Source b);

  const GemmCall<T>& call_;
  SrummaTaskList list_;
  std::vector<SrummaBlock> a_, b_;
  int me_ = 0;
  SrummaDomain domain_;
  SrummaSharedBlocks<T> shared_;
  SrummaRmaWindow<T> win_a_, win_b_;
  size_t in_place_tasks_ = 0;
  int64_t slot_a_ = 0;                // elements of a slot's A part (B follows)
  std::vector<T> slots_[2];
  MPI_Request requests_[2][2] = {{MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                                 {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
  std::vector<char> started_;  // per C sub-block: beta already applied
  uint64_t fetched_ = 0;
};

}  // namespace commpress::linalg::detail
