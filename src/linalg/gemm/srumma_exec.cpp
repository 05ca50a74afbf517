#include "linalg/gemm/srumma_exec.hpp"

#include <algorithm>
#include <utility>

#include "comm/session/private_comm.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

template <class T>
SrummaExec<T>::SrummaExec(const GemmCall<T>& call, SrummaTaskList list, std::vector<SrummaBlock> a,
                          std::vector<SrummaBlock> b)
    : call_(call), list_(std::move(list)), a_(std::move(a)), b_(std::move(b)) {
  const Grid& g = *call.grid;
  me_ = g.rank_of(g.row(), g.col());
}

template <class T>
bool SrummaExec<T>::in_domain(int owner) const {
  return owner == me_ || (shared_.is_open() && domain_.node_rank(owner) >= 0);
}

template <class T>
bool SrummaExec<T>::in_place_task(const SrummaStep& s, size_t mi, size_t ni) const {
  return in_domain(s.a[mi].owner) && in_domain(s.b[ni].owner);
}

template <class T>
Status SrummaExec<T>::open(int pretend) {
  const Grid& g = *call_.grid;
  COMMPRESS_RETURN_IF_ERROR(domain_.open(g.comm(), pretend));
  // A domain of one rank has no neighbour to share with: its own block is read in place
  // anyway, and everything else goes through RMA.
  if (domain_.size() > 1)
    COMMPRESS_RETURN_IF_ERROR(
        shared_.open(domain_, call_.a->data, a_[size_t(me_)], call_.b->data, b_[size_t(me_)]));
  // Every rank reaches the same answer: a domain spanning the grid on one rank spans it on all.
  const bool one_domain = g.size() == 1 || (shared_.is_open() && domain_.size() == g.size());
  if (!one_domain) {
    COMMPRESS_RETURN_IF_ERROR(win_a_.open(g.comm(), call_.a->data, a_[size_t(me_)]));
    COMMPRESS_RETURN_IF_ERROR(win_b_.open(g.comm(), call_.b->data, b_[size_t(me_)]));
  }
  int64_t most = 0;
  for (size_t s = 0; s < list_.steps.size(); ++s) {
    int64_t elements = 0;
    for (const auto* pieces : {&list_.steps[s].a, &list_.steps[s].b})
      for (const SrummaPiece& p : *pieces)
        if (!in_domain(p.owner)) elements += p.elements();
    if (elements == 0) continue;
    fetched_steps_.push_back(s);
    most = std::max(most, elements);
  }
  // Without overlap one buffer does: each step's gets complete before it multiplies.
  const bool overlap = call_.plan->overlap;
  for (size_t s = 0; s < std::min<size_t>(overlap ? 2 : 1, fetched_steps_.size()); ++s)
    slots_[s].data.resize(size_t(most));
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
typename SrummaExec<T>::Source SrummaExec<T>::source(const SrummaPiece& p, bool is_a, int64_t at,
                                                     const Slot& slot) const {
  if (at < 0) return in_place(p, is_a);
  return {slot.data.data() + at, std::max<int64_t>(1, p.rows)};  // fetched packed
}

template <class T>
Status SrummaExec<T>::fetch(const SrummaStep& s, Slot& slot) {
  int64_t at = 0;
  for (int is_a = 1; is_a >= 0; --is_a) {
    const std::vector<SrummaPiece>& pieces = is_a ? s.a : s.b;
    std::vector<int64_t>& where = is_a ? slot.a_at : slot.b_at;
    where.assign(pieces.size(), -1);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const SrummaPiece& p = pieces[i];
      if (in_domain(p.owner)) continue;
      const SrummaRmaWindow<T>& win = is_a ? win_a_ : win_b_;
      const int64_t ld = (is_a ? a_ : b_)[size_t(p.owner)].ld;
      slot.requests.push_back(MPI_REQUEST_NULL);
      COMMPRESS_RETURN_IF_ERROR(win.rget(p, ld, slot.data.data() + at, &slot.requests.back()));
      where[i] = at;
      at += p.elements();
      fetched_ += uint64_t(p.elements()) * sizeof(T);
    }
  }
  return {};
}

template <class T>
Status SrummaExec<T>::wait(Slot& slot) {
  const int rc = MPI_Waitall(int(slot.requests.size()), slot.requests.data(), MPI_STATUSES_IGNORE);
  slot.requests.clear();
  COMMPRESS_MPI(rc);
  return {};
}

template <class T>
void SrummaExec<T>::multiply(const SrummaStep& s, size_t mi, size_t ni, Source a, Source b) {
  DistMatrix<T>& c = *call_.c;
  const SrummaRange &rows = list_.rows[mi], &cols = list_.cols[ni];
  // beta scales each C sub-block once, on its first product.
  char& started = started_[mi * list_.cols.size() + ni];
  const T beta = started ? T(1) : call_.beta;
  started = 1;
  local_gemm(call_.transa, call_.transb, rows.size, cols.size, s.kk, call_.alpha, a.data, a.ld,
             b.data, b.ld, beta, c.data + rows.begin + cols.begin * c.ld, c.ld);
}

template <class T>
Status SrummaExec<T>::run() {
  if (list_.steps.empty()) {
    // k == 0 (or an empty C): C = beta * C still.
    DistMatrix<T>& c = *call_.c;
    const Grid& g = *call_.grid;
    scale_block(c.local_rows(g), c.local_cols(g), call_.beta, c.data, c.ld);
    return {};
  }
  started_.assign(list_.rows.size() * list_.cols.size(), 0);
  const size_t fetched = fetched_steps_.size();
  const bool overlap = call_.plan->overlap;
  // The first two steps' gets (both buffers) fly while the in-place products run.
  if (overlap)
    for (size_t r = 0; r < std::min<size_t>(2, fetched); ++r)
      COMMPRESS_RETURN_IF_ERROR(fetch(list_.steps[fetched_steps_[r]], slots_[r]));
  for (const SrummaStep& s : list_.steps)
    for (size_t mi = 0; mi < s.a.size(); ++mi)
      for (size_t ni = 0; ni < s.b.size(); ++ni)
        if (in_place_task(s, mi, ni))
          multiply(s, mi, ni, in_place(s.a[mi], true), in_place(s.b[ni], false));
  for (size_t r = 0; r < fetched; ++r) {
    const SrummaStep& s = list_.steps[fetched_steps_[r]];
    Slot& slot = slots_[overlap ? r % 2 : 0];
    if (!overlap)
      COMMPRESS_RETURN_IF_ERROR(fetch(s, slot));
    else if (r >= 1 && r + 1 < fetched)  // into the buffer step r-1 has finished with
      COMMPRESS_RETURN_IF_ERROR(fetch(list_.steps[fetched_steps_[r + 1]], slots_[(r + 1) % 2]));
    COMMPRESS_RETURN_IF_ERROR(wait(slot));
    for (size_t mi = 0; mi < s.a.size(); ++mi)
      for (size_t ni = 0; ni < s.b.size(); ++ni) {
        if (in_place_task(s, mi, ni)) continue;
        multiply(s, mi, ni, source(s.a[mi], true, slot.a_at[mi], slot),
                 source(s.b[ni], false, slot.b_at[ni], slot));
      }
  }
  return {};
}

template <class T>
Status SrummaExec<T>::close() {
  const Grid& g = *call_.grid;
  // Outstanding gets end before their windows (only after a failed run).
  for (Slot& s : slots_) (void)wait(s);
  COMMPRESS_RETURN_IF_ERROR(win_b_.close(g.comm()));
  COMMPRESS_RETURN_IF_ERROR(win_a_.close(g.comm()));
  return shared_.close();
}

template <class T>
uint64_t SrummaExec<T>::memory_bytes() const {
  return uint64_t(slots_[0].data.size() + slots_[1].data.size()) * sizeof(T) + shared_.bytes();
}

template class SrummaExec<float>;
template class SrummaExec<double>;

}  // namespace commpress::linalg::detail
