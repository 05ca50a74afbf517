// One SRUMMA call on one rank: opens the memory its pieces come from, works through its task
// list (every task whose pieces are both in the shared-memory domain first, read in place;
// then, step by step, the others, each step's pieces fetched once while the previous step
// multiplies) and closes again.
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
  // Where a slot holds each piece of the step it fetched (-1: read in place).
  struct Slot {
    std::vector<T> data;
    std::vector<int64_t> a_at, b_at;
    std::vector<MPI_Request> requests;
  };
  bool in_domain(int owner) const;
  bool in_place_task(const SrummaStep& s, size_t mi, size_t ni) const;
  Source in_place(const SrummaPiece& p, bool is_a) const;
  Source source(const SrummaPiece& p, bool is_a, int64_t at, const Slot& slot) const;
  Status fetch(const SrummaStep& s, Slot& slot);
  Status wait(Slot& slot);
  void multiply(const SrummaStep& s, size_t mi, size_t ni, Source a, Source b);

  const GemmCall<T>& call_;
  SrummaTaskList list_;
  std::vector<SrummaBlock> a_, b_;
  int me_ = 0;
  SrummaDomain domain_;
  SrummaSharedBlocks<T> shared_;
  SrummaRmaWindow<T> win_a_, win_b_;
  std::vector<size_t> fetched_steps_;  // steps with a piece outside the domain, in order
  Slot slots_[2];
  std::vector<char> started_;  // per C sub-block: beta already applied
  uint64_t fetched_ = 0;
};

}  // namespace commpress::linalg::detail
