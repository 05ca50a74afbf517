// Ranks grouped into nodes for the hierarchical algorithm: real shared-memory nodes
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), or "pretend" nodes of k consecutive ranks
// (Options::pretend_ranks_per_node, else the environment variable
// COMMPRESS_PRETEND_RANKS_PER_NODE) so the algorithm can be exercised on one machine.
#pragma once

#include <mpi.h>

#include <vector>

#include "commpress/comm.hpp"
#include "commpress/model.hpp"

namespace commpress::comm::detail {

// The k in use: the option if positive, else the environment variable, else 0 (real nodes).
int pretend_ranks_per_node(const Options& opts);

// The node size the cost models assume (consecutive ranks per node; 0 = no nodes known):
// the pretend size when asked for, else the profiling run's, when that run measured a link
// between nodes (a profile whose one measured link is also its node link comes from one node
// and says nothing about nodes). The collectives' Scenario and the multiply's GemmScenario
// both take it.
int modelled_ranks_per_node(const model::MachineProfile& m, const Options& opts);

class Hierarchy {
 public:
  Hierarchy() = default;
  Hierarchy(Hierarchy&& o) noexcept { *this = std::move(o); }
  Hierarchy& operator=(Hierarchy&& o) noexcept;
  Hierarchy(const Hierarchy&) = delete;
  Hierarchy& operator=(const Hierarchy&) = delete;
  ~Hierarchy();

  // Collective over comm. pretend > 0 groups ranks r with equal r / pretend.
  static Result<Hierarchy> build(MPI_Comm comm, int pretend);
  // build's result for (comm, pretend), built on first use and kept with comm (freed with
  // it), so repeated calls do not split communicators again. Collective the first time; every
  // rank reaches the first use in the same call, so the cache is consistent across ranks.
  static Result<const Hierarchy*> of(MPI_Comm comm, int pretend);

  MPI_Comm node() const { return node_; }    // the ranks of this node
  MPI_Comm cross() const { return cross_; }  // equal local rank, one per node (even only)
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  int node_index() const { return node_index_; }  // nodes numbered by their lowest rank
  int nodes() const { return nodes_; }
  bool even() const { return even_; }  // every node has local_size() ranks
  // even only: the rank with local rank l on node k.
  int rank_of(int k, int l) const { return rank_of_[size_t(k) * local_size_ + l]; }

 private:
  MPI_Comm node_ = MPI_COMM_NULL, cross_ = MPI_COMM_NULL;
  int local_rank_ = 0, local_size_ = 1, node_index_ = 0, nodes_ = 1;
  bool even_ = true;
  std::vector<int> rank_of_;
};

}  // namespace commpress::comm::detail
