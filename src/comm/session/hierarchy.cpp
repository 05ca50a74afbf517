#include "comm/session/hierarchy.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "comm/session/environment.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/comm_keyval.hpp"

namespace commpress::comm::detail {

namespace {

using HierarchyCache = std::map<int, Hierarchy>;

int delete_cache(MPI_Comm, int, void* attr, void*) {
  delete static_cast<HierarchyCache*>(attr);
  return MPI_SUCCESS;
}

int cache_keyval() {
  static int key = new_comm_keyval(delete_cache);
  return key;
}

}  // namespace

int pretend_ranks_per_node(const Options& opts) {
  if (opts.pretend_ranks_per_node > 0) return opts.pretend_ranks_per_node;
  return environment().pretend_ranks_per_node;
}

namespace {

bool same_link(const model::Link& a, const model::Link& b) {
  auto same = [](const model::LinkParams& x, const model::LinkParams& y) {
    return x.alpha == y.alpha && x.beta == y.beta;
  };
  return same(a.eager, b.eager) && same(a.rendezvous, b.rendezvous) &&
         a.switch_bytes == b.switch_bytes;
}

}  // namespace

int modelled_ranks_per_node(const model::MachineProfile& m, const Options& opts) {
  const int pretend = pretend_ranks_per_node(opts);
  if (pretend > 0) return pretend;
  const bool one_node_profile = m.intra_node && same_link(*m.intra_node, m.network);
  return one_node_profile ? 0 : m.ranks_per_node;
}

Hierarchy& Hierarchy::operator=(Hierarchy&& o) noexcept {
  std::swap(node_, o.node_);
  std::swap(cross_, o.cross_);
  local_rank_ = o.local_rank_;
  local_size_ = o.local_size_;
  node_index_ = o.node_index_;
  nodes_ = o.nodes_;
  even_ = o.even_;
  rank_of_ = std::move(o.rank_of_);
  return *this;
}

Hierarchy::~Hierarchy() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
  if (cross_ != MPI_COMM_NULL) MPI_Comm_free(&cross_);
}

Result<Hierarchy> Hierarchy::build(MPI_Comm comm, int pretend) {
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  Hierarchy h;
  if (pretend > 0) COMMPRESS_MPI(MPI_Comm_split(comm, rank / pretend, rank, &h.node_));
  else COMMPRESS_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &h.node_));
  COMMPRESS_MPI(MPI_Comm_rank(h.node_, &h.local_rank_));
  COMMPRESS_MPI(MPI_Comm_size(h.node_, &h.local_size_));
  int node_id = rank;  // a node is named by its lowest rank
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &node_id, 1, MPI_INT, MPI_MIN, h.node_));
  int mine[3] = {node_id, h.local_rank_, h.local_size_};
  std::vector<int> all(size_t(size) * 3);
  COMMPRESS_MPI(MPI_Allgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, comm));
  std::vector<int> ids;
  for (int r = 0; r < size; ++r) {
    ids.push_back(all[r * 3]);
    h.even_ = h.even_ && all[r * 3 + 2] == h.local_size_;
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  h.nodes_ = int(ids.size());
  h.node_index_ = int(std::lower_bound(ids.begin(), ids.end(), node_id) - ids.begin());
  if (!h.even_) return h;
  h.rank_of_.assign(size_t(size), -1);
  for (int r = 0; r < size; ++r) {
    int k = int(std::lower_bound(ids.begin(), ids.end(), all[r * 3]) - ids.begin());
    h.rank_of_[size_t(k) * h.local_size_ + all[r * 3 + 1]] = r;
  }
  COMMPRESS_MPI(MPI_Comm_split(comm, h.local_rank_, h.node_index_, &h.cross_));
  return h;
}

}  // namespace commpress::comm::detail

namespace commpress::comm::detail {

Result<const Hierarchy*> Hierarchy::of(MPI_Comm comm, int pretend) {
  void* attr = nullptr;
  int found = 0;
  COMMPRESS_MPI(MPI_Comm_get_attr(comm, cache_keyval(), &attr, &found));
  auto* cache = static_cast<HierarchyCache*>(attr);
  if (!found) {
    cache = new HierarchyCache;
    int rc = MPI_Comm_set_attr(comm, cache_keyval(), cache);
    if (rc != MPI_SUCCESS) {
      delete cache;
      return mpi_status(rc, "MPI_Comm_set_attr");
    }
  }
  if (auto it = cache->find(pretend); it != cache->end()) return &it->second;
  auto h = build(comm, pretend);
  if (!h.ok()) return h.status();
  return &cache->emplace(pretend, std::move(*h)).first->second;
}

}  // namespace commpress::comm::detail
