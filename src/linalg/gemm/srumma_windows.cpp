#include "linalg/gemm/srumma_windows.hpp"

#include <algorithm>
#include <numeric>

#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"

namespace commpress::linalg::detail {

namespace {

// Copies a rows x cols block with leading dimension ld into dst, packed (ld = rows).
template <class T>
void pack(const T* src, const SrummaBlock& s, T* dst) {
  for (int64_t j = 0; j < s.cols; ++j)
    std::copy(src + j * s.ld, src + j * s.ld + s.rows, dst + j * s.rows);
}

}  // namespace

SrummaDomain::~SrummaDomain() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

Status SrummaDomain::open(MPI_Comm comm, int pretend) {
  int rank = 0, p = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &p));
  MPI_Comm shared = MPI_COMM_NULL;
  COMMPRESS_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
  if (pretend > 0) {
    // Pretend nodes stay inside real ones: a group is never given memory it cannot share.
    const int rc = MPI_Comm_split(shared, rank / pretend, rank, &node_);
    MPI_Comm_free(&shared);
    COMMPRESS_MPI(rc);
  } else {
    node_ = shared;
  }
  COMMPRESS_MPI(MPI_Comm_size(node_, &size_));
  MPI_Group all = MPI_GROUP_NULL, node = MPI_GROUP_NULL;
  COMMPRESS_MPI(MPI_Comm_group(comm, &all));
  COMMPRESS_MPI(MPI_Comm_group(node_, &node));
  std::vector<int> ranks(size_t(p), 0);
  std::iota(ranks.begin(), ranks.end(), 0);
  node_rank_.assign(size_t(p), -1);
  const int rc = MPI_Group_translate_ranks(all, p, ranks.data(), node, node_rank_.data());
  MPI_Group_free(&all);
  MPI_Group_free(&node);
  COMMPRESS_MPI(rc);
  for (int& r : node_rank_)
    if (r == MPI_UNDEFINED) r = -1;
  return {};
}

template <class T>
Status SrummaSharedBlocks<T>::open(const SrummaDomain& d, const T* a, const SrummaBlock& my_a,
                                   const T* b, const SrummaBlock& my_b) {
  domain_ = &d;
  bytes_ = uint64_t(my_a.elements() + my_b.elements()) * sizeof(T);
  MPI_Info info = MPI_INFO_NULL;
  COMMPRESS_MPI(MPI_Info_create(&info));
  // Each rank's part on its own pages (NUMA-local to the rank that fills it).
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  T* mine = nullptr;
  const int rc =
      MPI_Win_allocate_shared(MPI_Aint(bytes_), int(sizeof(T)), info, d.comm(), &mine, &win_);
  MPI_Info_free(&info);
  COMMPRESS_MPI(rc);
  COMMPRESS_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
  if (my_a.elements() > 0) pack(a, my_a, mine);
  if (my_b.elements() > 0) pack(b, my_b, mine + my_a.elements());
  // The copies must be visible to the whole domain before anyone reads them.
  COMMPRESS_MPI(MPI_Win_sync(win_));
  COMMPRESS_MPI(MPI_Barrier(d.comm()));
  COMMPRESS_MPI(MPI_Win_sync(win_));
  base_.assign(size_t(d.size()), nullptr);
  for (int r = 0; r < d.size(); ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    void* ptr = nullptr;
    COMMPRESS_MPI(MPI_Win_shared_query(win_, r, &size, &unit, &ptr));
    base_[size_t(r)] = static_cast<const T*>(ptr);
  }
  return {};
}

template <class T>
Status SrummaSharedBlocks<T>::close() {
  if (win_ == MPI_WIN_NULL) return {};
  COMMPRESS_MPI(MPI_Win_unlock_all(win_));
  // Nobody frees the memory while a neighbour may still be reading it.
  COMMPRESS_MPI(MPI_Barrier(domain_->comm()));
  COMMPRESS_MPI(MPI_Win_free(&win_));
  return {};
}

template <class T>
Status SrummaRmaWindow<T>::open(MPI_Comm comm, const T* data, const SrummaBlock& mine) {
  // A rank owning nothing still joins with a zero-size window at a valid address.
  static T empty{};
  const int64_t span = data != nullptr ? mine.span() : 0;
  void* base = const_cast<T*>(span > 0 ? data : &empty);  // only ever read through the window
  COMMPRESS_MPI(MPI_Win_create(base, MPI_Aint(span) * MPI_Aint(sizeof(T)), int(sizeof(T)),
                               MPI_INFO_NULL, comm, &win_));
  COMMPRESS_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
  return {};
}

template <class T>
Status SrummaRmaWindow<T>::rget(const SrummaPiece& p, int64_t owner_ld, T* dest,
                                MPI_Request* req) const {
  const MPI_Datatype base = comm::detail::mpi_datatype(codec::dtype_of<T>());
  const MPI_Aint disp = MPI_Aint(p.row0 + p.col0 * owner_ld);
  const int count = int(p.elements());
  if (p.cols == 1 || p.rows == owner_ld) {
    COMMPRESS_MPI(MPI_Rget(dest, count, base, p.owner, disp, count, base, win_, req));
    return {};
  }
  // Columns of the owner's block, strided by its ld: one vector type on the target side.
  MPI_Datatype cols = MPI_DATATYPE_NULL;
  COMMPRESS_MPI(MPI_Type_vector(int(p.cols), int(p.rows), int(owner_ld), base, &cols));
  COMMPRESS_MPI(MPI_Type_commit(&cols));
  const int rc = MPI_Rget(dest, count, base, p.owner, disp, 1, cols, win_, req);
  MPI_Type_free(&cols);  // the pending get keeps its own reference
  COMMPRESS_MPI(rc);
  return {};
}

template <class T>
Status SrummaRmaWindow<T>::close(MPI_Comm comm) {
  if (win_ == MPI_WIN_NULL) return {};
  COMMPRESS_MPI(MPI_Win_unlock_all(win_));
  // Every get from every rank is complete before any block's owner moves on.
  COMMPRESS_MPI(MPI_Barrier(comm));
  COMMPRESS_MPI(MPI_Win_free(&win_));
  return {};
}

template class SrummaSharedBlocks<float>;
template class SrummaSharedBlocks<double>;
template class SrummaRmaWindow<float>;
template class SrummaRmaWindow<double>;

}  // namespace commpress::linalg::detail
