// GemmAlgorithm::Srumma (Krishnan & Nieplocha): owner computes. Each rank works through the
// task list of its own C block (srumma_tasks.hpp): products whose pieces sit in its
// shared-memory domain first, read in place, then the others, fetched with one-sided gets
// from the owners' blocks (srumma_windows.hpp), double-buffered so the gets of k step s+1
// run while step s multiplies. No owner takes part in a transfer: it only exposes its blocks.
//
// Traffic convention: bytes_sent (= raw_bytes, nothing is compressed) counts the bytes this
// rank FETCHED with MPI_Rget. Reads of its own block and of shared-memory neighbours move
// nothing and are not counted. memory_bytes: the two fetch buffers plus this rank's part of
// the shared window.
//
// Shared-memory domains are the real nodes (MPI_COMM_TYPE_SHARED), or, when the environment
// variable COMMPRESS_PRETEND_RANKS_PER_NODE=N is set (as for the hierarchical collectives),
// groups of N consecutive ranks within them: N = 1 sends every piece through RMA, which is
// how one machine exercises the multi-node path. Every rank must set the same N.
#include <climits>
#include <string>
#include <vector>

#include "comm/session/hierarchy.hpp"
#include "comm/session/private_comm.hpp"
#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/srumma_exec.hpp"

namespace commpress::linalg::detail {

namespace {

// Every rank's block shapes (A's and B's caller ld come from an allgather) and its pretend
// node size, then one verdict every rank reaches from the same numbers.
struct Layout {
  std::vector<SrummaBlock> a, b;  // by grid rank
  int pretend = 0;
};

template <class T>
SrummaBlock block_of(const DistMatrix<T>& m, const Grid& g, int row, int col, int64_t ld) {
  return {BlockSplit{m.rows, g.rows()}.size(row), BlockSplit{m.cols, g.cols()}.size(col), ld};
}

template <class T>
Result<Layout> gather_layout(const GemmCall<T>& call) {
  const Grid& g = *call.grid;
  const int p = g.size();
  const int64_t mine[3] = {call.a->ld, call.b->ld,
                           comm::detail::pretend_ranks_per_node(comm::Options{})};
  std::vector<int64_t> all(size_t(3 * p));
  COMMPRESS_MPI(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, g.comm()));
  Layout l;
  l.pretend = int(all[2]);
  for (int r = 0; r < p; ++r) {
    const int row = (r / g.cols()) % g.rows(), col = r % g.cols();
    l.a.push_back(block_of(*call.a, g, row, col, all[size_t(3 * r)]));
    l.b.push_back(block_of(*call.b, g, row, col, all[size_t(3 * r + 1)]));
    if (all[size_t(3 * r + 2)] != l.pretend)
      return Status{ErrorCode::mismatch,
                    "srumma: COMMPRESS_PRETEND_RANKS_PER_NODE differs across ranks (" +
                        std::to_string(l.pretend) + " on rank 0, " +
                        std::to_string(all[size_t(3 * r + 2)]) + " on rank " + std::to_string(r) +
                        ")"};
  }
  // MPI counts and strides are int: every block (so every piece) and every ld must fit.
  for (const auto* blocks : {&l.a, &l.b})
    for (const SrummaBlock& s : *blocks)
      if (s.ld > INT_MAX || s.elements() > INT_MAX)
        return Status{ErrorCode::unsupported,
                      "srumma: a " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                          " block with ld " + std::to_string(s.ld) + " exceeds MPI's int counts"};
  return l;
}

}  // namespace

template <class T>
Status run_srumma(const GemmCall<T>& call, GemmReport& report) {
  const Grid& g = *call.grid;
  if (g.layers() != 1) return {ErrorCode::invalid_argument, "srumma runs on 2-D grids"};
  auto layout = gather_layout(call);
  if (!layout.ok()) return layout.status();

  SrummaTaskList list = srumma_tasks(call.transa, call.transb, call.m, call.n, call.k, g);
  SrummaExec<T> exec(call, std::move(list), layout->a, layout->b);
  COMMPRESS_RETURN_IF_ERROR(exec.open(layout->pretend));
  const Status ran = exec.run();
  COMMPRESS_RETURN_IF_ERROR(exec.close());
  COMMPRESS_RETURN_IF_ERROR(ran);
  report.raw_bytes = exec.fetched_bytes();
  report.bytes_sent = exec.fetched_bytes();
  report.memory_bytes = exec.memory_bytes();
  return {};
}

template Status run_srumma<float>(const GemmCall<float>&, GemmReport&);
template Status run_srumma<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
