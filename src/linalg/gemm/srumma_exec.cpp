#include "linalg/gemm/srumma_exec.hpp"

#include <algorithm>
#include <utility>

#include "comm/detail/private_comm.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

template <class T>
SrummaExec<T>::SrummaExec(const GemmCall<T>& call, SrummaTaskList list,
                          std::vector<SrummaBlock> a, std::vector<SrummaBlock> b)
    : call_(call), list_(std::move(list)), a_(std::move(a)), b_(std::move(b)) {
  const Grid& g = *call.grid;
  me_ = g.rank_of(g.row(), g.col());
}

template <class T>
bool SrummaExec<T>::in_domain(int owner) const {
  return owner == me_ || (shared_.is_open() && domain_.node_rank(owner) >= 0);
}

template <class T>
Status SrummaExec<T>::open(int pretend) {
  const Grid& g = *call_.grid;
  COMMPRESS_RETURN_IF_ERROR(domain_.open(g.comm(), pretend));
  // A domain of one rank has no neighbour to share with: its own block is read in place
  // anyway, and everything else goes through RMA.
  if (domain_.size() > 1)
    COMMPRESS_RETURN_IF_ERROR(shared_.open(domain_, call_.a->data, a_[size_t(me_)],
                                           call_.b->data, b_[size_t(me_)]));
  in_place_tasks_ =
      srumma_local_first(list_.tasks, [this](int owner) { return in_domain(owner); });
  // Every rank reaches the same answer: a domain spanning the grid on one rank spans it on all.
  const bool one_domain = g.size() == 1 || (shared_.is_open() && domain_.size() == g.size());
  if (!one_domain) {
    COMMPRESS_RETURN_IF_ERROR(win_a_.open(g.comm(), call_.a->data, a_[size_t(me_)]));
    COMMPRESS_RETURN_IF_ERROR(win_b_.open(g.comm(), call_.b->data, b_[size_t(me_)]));
  }
  int64_t most_a = 0, most_b = 0;
  for (size_t t = in_place_tasks_; t < list_.tasks.size(); ++t) {
    const SrummaTask& task = list_.tasks[t];
    if (!in_domain(task.a.owner)) most_a = std::max(most_a, task.a.elements());
    if (!in_domain(task.b.owner)) most_b = std::max(most_b, task.b.elements());
  }
  slot_a_ = most_a;
  const size_t fetched_tasks = list_.tasks.size() - in_place_tasks_;
  for (size_t s = 0; s < std::min<size_t>(2, fetched_tasks); ++s)
    slots_[s].resize(size_t(most_a + most_b));
  return {};
}

template <class T>
typename SrummaExec<T>::Source SrummaExec<T>::in_place(const SrummaPiece& p, bool is_a) const {
  const SrummaBlock& shape = (is_a ? a_ : b_)[size_t(p.owner)];
  if (p.owner == me_) {
    const T* data = is_a ? call_.a->data : call_.b->data;
    return {data + p.row0 + p.col0 * shape.ld, shape.ld};
  }
  // The shared copy is packed.
  const int64_t ld = std::max<int64_t>(1, shape.rows);
  const T* base = is_a ? shared_.a_of(p.owner) : shared_.b_of(p.owner, a_);
  return {base + p.row0 + p.col0 * ld, ld};
}

template <class T>
typename SrummaExec<T>::Source SrummaExec<T>::source(const SrummaPiece& p, bool is_a,
                                                     int slot) {
  if (in_domain(p.owner)) return in_place(p, is_a);
  return {slots_[slot].data() + (is_a ? 0 : slot_a_), std::max<int64_t>(1, p.rows)};
}

template <class T>
Status SrummaExec<T>::fetch(const SrummaTask& t, int slot) {
  if (!in_domain(t.a.owner)) {
    COMMPRESS_RETURN_IF_ERROR(win_a_.rget(t.a, a_[size_t(t.a.owner)].ld, slots_[slot].data(),
                                          &requests_[slot][0]));
    fetched_ += uint64_t(t.a.elements()) * sizeof(T);
  }
  if (!in_domain(t.b.owner)) {
    COMMPRESS_RETURN_IF_ERROR(win_b_.rget(t.b, b_[size_t(t.b.owner)].ld,
                                          slots_[slot].data() + slot_a_, &requests_[slot][1]));
    fetched_ += uint64_t(t.b.elements()) * sizeof(T);
  }
  return {};
}

template <class T>
Status SrummaExec<T>::wait(int slot) {
  COMMPRESS_MPI(MPI_Waitall(2, requests_[slot], MPI_STATUSES_IGNORE));
  return {};
}

template <class T>
void SrummaExec<T>::multiply(const SrummaTask& t, Source a, Source b) {
  DistMatrix<T>& c = *call_.c;
  // beta scales each C sub-block once, on its first product.
  const T beta = started_[size_t(t.c_part)] ? T(1) : call_.beta;
  started_[size_t(t.c_part)] = 1;
  local_gemm(call_.transa, call_.transb, t.mm, t.nn, t.kk, call_.alpha, a.data, a.ld, b.data,
             b.ld, beta, c.data + t.c_row0 + t.c_col0 * c.ld, c.ld);
}

template <class T>
Status SrummaExec<T>::run() {
  const std::vector<SrummaTask>& tasks = list_.tasks;
  if (tasks.empty()) {
    // k == 0 (or an empty C): C = beta * C still.
    DistMatrix<T>& c = *call_.c;
    const Grid& g = *call_.grid;
    scale_block(c.local_rows(g), c.local_cols(g), call_.beta, c.data, c.ld);
    return {};
  }
  started_.assign(size_t(list_.c_parts), 0);
  const size_t fetched = tasks.size() - in_place_tasks_;
  const bool overlap = call_.opts == nullptr || call_.opts->overlap;
  // The first get flies while the in-place products run.
  if (fetched > 0 && overlap) COMMPRESS_RETURN_IF_ERROR(fetch(tasks[in_place_tasks_], 0));
  for (size_t t = 0; t < in_place_tasks_; ++t)
    multiply(tasks[t], in_place(tasks[t].a, true), in_place(tasks[t].b, false));
  for (size_t r = 0; r < fetched; ++r) {
    const SrummaTask& task = tasks[in_place_tasks_ + r];
    const int slot = int(r % 2);
    if (!overlap)
      COMMPRESS_RETURN_IF_ERROR(fetch(task, slot));
    else if (r + 1 < fetched)
      COMMPRESS_RETURN_IF_ERROR(fetch(tasks[in_place_tasks_ + r + 1], 1 - slot));
    COMMPRESS_RETURN_IF_ERROR(wait(slot));
    multiply(task, source(task.a, true, slot), source(task.b, false, slot));
  }
  return {};
}

template <class T>
Status SrummaExec<T>::close() {
  const Grid& g = *call_.grid;
  // Outstanding gets end before their windows (only after a failed run).
  for (int s = 0; s < 2; ++s) (void)wait(s);
  COMMPRESS_RETURN_IF_ERROR(win_b_.close(g.comm()));
  COMMPRESS_RETURN_IF_ERROR(win_a_.close(g.comm()));
  return shared_.close();
}

template <class T>
uint64_t SrummaExec<T>::memory_bytes() const {
  return uint64_t(slots_[0].size() + slots_[1].size()) * sizeof(T) + shared_.bytes();
}

template class SrummaExec<float>;
template class SrummaExec<double>;

}  // namespace commpress::linalg::detail
