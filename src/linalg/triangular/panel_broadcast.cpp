#include "linalg/triangular/panel_broadcast.hpp"

#include <algorithm>
#include <string>

#include "linalg/triangular/block_frames.hpp"

namespace commpress::linalg::detail {

template <class T>
void WholePanel<T>::prepare(const BlockCyclic<T>& a, PanelKind kind, int64_t k, int64_t lo,
                            int64_t hi) {
  const bool column = kind == PanelKind::Column;
  const CyclicAxis& along = column ? a.rows : a.cols;
  const CyclicAxis& across = column ? a.cols : a.rows;
  lo_ = lo;
  nb_ = along.nb;
  rows_ = std::max<int64_t>(0, std::min(hi * along.nb, along.n) - lo * along.nb);
  width_ = across.block_size(k);
  gathered_ = 0;
  status_ = 0;
  own_procs_ = 0;
  needed_.on = false;
  needed_.gathering = false;
  buffer_.assign(size_t(std::max<int64_t>(1, rows_ * width_)), T(0));
}

template <class T>
void WholePanel<T>::start(const BlockCyclic<T>& a, const LineGrid& g, PanelKind kind, int64_t k,
                     int64_t lo, int64_t hi, const Wire* frames, int status, bool spread_across) {
  const bool column = kind == PanelKind::Column;
  const CyclicAxis& along = column ? a.rows : a.cols;   // the axis i runs over
  const CyclicAxis& across = column ? a.cols : a.rows;  // the axis k sits on
  prepare(a, kind, k, lo, hi);
  const int64_t size = rows_ * width_;
  const int owner_line = across.owner(k);
  const int me_across = column ? g.col : g.row;
  const int me_along = column ? g.row : g.col;
  const int procs_along = along.procs;
  MPI_Comm line = column ? g.col_comm : g.row_comm;
  MPI_Comm spread = column ? g.row_comm : g.col_comm;

  if (me_across == owner_line && rows_ > 0) {
    // Stage 1: each rank of the owning line packs its blocks i (in order), then all gather.
    std::vector<int> counts(size_t(procs_along), 0), displs(size_t(procs_along), 0);
    for (int64_t i = lo; i < hi; ++i) counts[size_t(along.owner(i))] += int(along.block_size(i) * width_);
    for (int p = 1; p < procs_along; ++p) displs[size_t(p)] = displs[size_t(p - 1)] + counts[size_t(p - 1)];
    std::vector<T> mine(size_t(std::max(1, counts[size_t(me_along)])));
    std::vector<T> all(size_t(std::max<int64_t>(1, size)));
    int64_t at = 0;
    const int64_t k_local = across.local_start(k);
    for (int64_t i = lo; i < hi; ++i) {
      if (along.owner(i) != me_along) continue;
      const int64_t bi = along.block_size(i), i_local = along.local_start(i);
      for (int64_t q = 0; q < width_; ++q)
        for (int64_t p = 0; p < bi; ++p)
          mine[size_t(at++)] = column ? *a.at(i_local + p, k_local + q) : *a.at(k_local + q, i_local + p);
    }
    gathered_ = (size - counts[size_t(me_along)]) * int64_t(sizeof(T));
    MPI_Allgatherv(mine.data(), counts[size_t(me_along)], mpi_type_of<T>(), all.data(),
                   counts.data(), displs.data(), mpi_type_of<T>(), line);
    std::vector<int64_t> cursor(displs.begin(), displs.end());
    for (int64_t i = lo; i < hi; ++i) {
      const int p = along.owner(i);
      const int64_t bi = along.block_size(i), row0 = (i - lo) * nb_;
      for (int64_t q = 0; q < width_; ++q)
        for (int64_t r = 0; r < bi; ++r)
          buffer_[size_t(row0 + r + q * rows_)] = all[size_t(cursor[size_t(p)]++)];
    }
  }
  across_ = spread_across;
  status_ = status;
  // Stage 2: across the lines, rooted at the owning one.
  if (spread_across) spread_.start(buffer_.data(), size, status, owner_line, spread, frames);
}

template <class T>
void WholePanel<T>::start_own_rows(const BlockCyclic<T>& a, const LineGrid& g, PanelKind kind,
                                   int64_t k, int64_t lo, int64_t hi, const Wire* frames) {
  const bool column = kind == PanelKind::Column;
  const CyclicAxis& along = column ? a.rows : a.cols;
  const CyclicAxis& across = column ? a.cols : a.rows;
  const int me_along = column ? g.row : g.col, me_across = column ? g.col : g.row;
  lo_ = lo;
  nb_ = along.nb;
  width_ = across.block_size(k);
  own_procs_ = along.procs;
  own_first_ = along.local_before(lo, me_along);
  rows_ = along.local_before(hi, me_along) - own_first_;
  gathered_ = 0;
  status_ = 0;
  buffer_.assign(size_t(std::max<int64_t>(1, rows_ * width_)), T(0));
  const int owner_line = across.owner(k);
  if (me_across == owner_line && rows_ > 0) {
    // This rank's blocks of the panel are its local items [own_first_, own_first_ + rows_).
    const int64_t k_local = across.local_start(k);
    for (int64_t q = 0; q < width_; ++q)
      for (int64_t r = 0; r < rows_; ++r)
        buffer_[size_t(r + q * rows_)] =
            column ? *a.at(own_first_ + r, k_local + q) : *a.at(k_local + q, own_first_ + r);
  }
  across_ = true;
  spread_.start(buffer_.data(), rows_ * width_, 0, owner_line, column ? g.row_comm : g.col_comm,
                frames);
}

template <class T>
void WholePanel<T>::start_needed(const BlockCyclic<T>& a, const LineGrid& g, int64_t k,
                                 int64_t lo, int64_t hi, const Wire* frames, int status) {
  prepare(a, PanelKind::Column, k, lo, hi);
  Needed& d = needed_;
  d.on = true;
  d.rows = a.rows;
  d.cols = a.cols;
  d.row = g.row;
  d.col = g.col;
  d.col_comm = g.col_comm;
  d.frames = frames != nullptr && frames->compressed() ? frames : nullptr;
  d.tag = int(k % 32768);
  d.own_sizes.clear();
  for (int64_t i = lo; i < hi; ++i)
    if (a.rows.owner(i) == g.row) d.own_sizes.push_back(a.rows.block_size(i) * width_);
  const int64_t count = (a.rows.local_before(hi, g.row) - a.rows.local_before(lo, g.row)) * width_;
  d.own.assign(size_t(std::max<int64_t>(1, count)), T(0));
  const int owner_col = a.cols.owner(k);
  if (g.col == owner_col && count > 0) {
    const int64_t k_local = a.cols.local_start(k);
    T* dst = d.own.data();
    for (int64_t i = lo; i < hi; ++i) {
      if (a.rows.owner(i) != g.row) continue;
      const int64_t bi = a.rows.block_size(i), r = a.rows.local_start(i);
      for (int64_t q = 0; q < width_; ++q, dst += bi)
        std::copy(a.at(r, k_local + q), a.at(r, k_local + q) + bi, dst);
    }
  }
  across_ = true;
  status_ = status;
  spread_.start(d.own.data(), count, status, owner_col, g.row_comm, frames, d.own_sizes);
}

template <class T>
std::vector<int64_t> WholePanel<T>::gathered_from(int row) const {
  const int64_t hi = lo_ + (rows_ + nb_ - 1) / nb_;
  std::vector<int64_t> js;
  for (int64_t j = lo_; j < hi; ++j)
    if (needed_.cols.owner(j) == needed_.col && needed_.rows.owner(j) == row) js.push_back(j);
  return js;
}

template <class T>
void WholePanel<T>::start_gather() {
  Needed& d = needed_;
  d.arrived = spread_.wait();
  status_ = int(spread_.status());
  const CyclicAxis& rows = d.rows;
  const int64_t hi = lo_ + (rows_ + nb_ - 1) / nb_;
  // This process row's blocks into their places.
  const T* src = d.own.data();
  for (int64_t i = lo_; i < hi; ++i) {
    if (rows.owner(i) != d.row) continue;
    const int64_t bi = rows.block_size(i);
    for (int64_t q = 0; q < width_; ++q, src += bi)
      std::copy(src, src + bi, buffer_.data() + (i - lo_) * nb_ + q * rows_);
  }
  d.gathering = true;
  if (d.frames != nullptr) return start_frame_gather();
  // The blocks of this process column, each from the process row that holds it.
  const int procs = rows.procs;
  d.counts.assign(size_t(procs), 0);
  d.displs.assign(size_t(procs), 0);
  for (int64_t j = lo_; j < hi; ++j)
    if (d.cols.owner(j) == d.col) d.counts[size_t(rows.owner(j))] += int(rows.block_size(j) * width_);
  for (int p = 1; p < procs; ++p) d.displs[size_t(p)] = d.displs[size_t(p - 1)] + d.counts[size_t(p - 1)];
  const int total = d.displs[size_t(procs - 1)] + d.counts[size_t(procs - 1)];
  d.mine.assign(size_t(std::max(1, d.counts[size_t(d.row)])), T(0));
  d.all.assign(size_t(std::max(1, total)), T(0));
  int64_t put = 0;
  for (int64_t j : gathered_from(d.row))
    for (int64_t q = 0; q < width_; ++q)
      for (int64_t r = 0; r < rows.block_size(j); ++r) d.mine[size_t(put++)] = block(j)[r + q * rows_];
  d.requests.assign(1, MPI_REQUEST_NULL);
  d.statuses.resize(1);
  d.complete = false;
  MPI_Iallgatherv(d.mine.data(), d.counts[size_t(d.row)], mpi_type_of<T>(), d.all.data(),
                  d.counts.data(), d.displs.data(), mpi_type_of<T>(), d.col_comm, &d.requests[0]);
  gathered_ += int64_t(total - d.counts[size_t(d.row)]) * int64_t(sizeof(T));
}

// Each process row's frames of its blocks to every other one in the column, point to point:
// a receive is posted for the largest frames those blocks can have, the sizes being known only
// to their encoder (a rank whose broadcast failed sends none, which fails its receivers).
template <class T>
void WholePanel<T>::start_frame_gather() {
  Needed& d = needed_;
  const int procs = d.rows.procs;
  d.sent.clear();
  if (d.arrived.ok()) {
    size_t b = 0;  // index among this process row's blocks
    const int64_t hi = lo_ + (rows_ + nb_ - 1) / nb_;
    for (int64_t i = lo_; i < hi; ++i) {
      if (d.rows.owner(i) != d.row) continue;
      if (d.cols.owner(i) == d.col) {
        auto f = spread_.block_frames(b);
        d.sent.insert(d.sent.end(), f.begin(), f.end());
      }
      ++b;
    }
  }
  d.frames_from.resize(size_t(procs));
  d.requests.assign(size_t(2 * procs), MPI_REQUEST_NULL);
  d.statuses.resize(size_t(2 * procs));
  d.complete = false;
  for (int p = 0; p < procs; ++p) {
    if (p == d.row) continue;
    std::vector<int64_t> sizes;
    for (int64_t j : gathered_from(p)) sizes.push_back(d.rows.block_size(j) * width_);
    d.frames_from[size_t(p)].resize(blocks_capacity(*d.frames, sizes));
    MPI_Irecv(d.frames_from[size_t(p)].data(), int(d.frames_from[size_t(p)].size()), MPI_BYTE, p,
              d.tag, d.col_comm, &d.requests[size_t(2 * p)]);
    MPI_Isend(d.sent.data(), int(d.sent.size()), MPI_BYTE, p, d.tag, d.col_comm,
              &d.requests[size_t(2 * p + 1)]);
  }
}

template <class T>
Status WholePanel<T>::finish_frame_gather() {
  Needed& d = needed_;
  const int procs = d.rows.procs;
  const std::vector<MPI_Status>& st = d.statuses;
  Status outcome;
  std::vector<T> one;
  std::vector<size_t> offsets;
  for (int p = 0; p < procs; ++p) {
    if (p == d.row) continue;
    int got = 0;
    MPI_Get_count(&st[size_t(2 * p)], MPI_BYTE, &got);
    gathered_ += got;
    const std::vector<int64_t> js = gathered_from(p);
    std::vector<int64_t> sizes;
    int64_t total = 0;
    for (int64_t j : js) {
      sizes.push_back(d.rows.block_size(j) * width_);
      total += sizes.back();
    }
    one.resize(size_t(std::max<int64_t>(1, total)));
    const Status s = decode_blocks(*d.frames, std::span<const std::byte>(
                                       d.frames_from[size_t(p)].data(), size_t(got)),
                                   sizes, one.data(), offsets);
    if (!s.ok()) {
      if (outcome.ok())
        outcome = {s.code(), "panel blocks from process row " + std::to_string(p) + ": " +
                                 s.message()};
      continue;
    }
    const T* src = one.data();
    for (int64_t j : js) {
      const int64_t bj = d.rows.block_size(j);
      for (int64_t q = 0; q < width_; ++q, src += bj)
        std::copy(src, src + bj, buffer_.data() + (j - lo_) * nb_ + q * rows_);
    }
  }
  return outcome;
}

template <class T>
void WholePanel<T>::finish_gather() {
  Needed& d = needed_;
  if (!d.complete) MPI_Waitall(int(d.requests.size()), d.requests.data(), d.statuses.data());
  d.complete = true;
  if (d.frames != nullptr) {
    Status s = finish_frame_gather();
    if (d.arrived.ok()) d.arrived = s;
    d.gathering = false;
    d.on = false;
    return;
  }
  const int64_t hi = lo_ + (rows_ + nb_ - 1) / nb_;
  std::vector<int64_t> cursor(d.displs.begin(), d.displs.end());
  for (int64_t j = lo_; j < hi; ++j) {
    if (d.cols.owner(j) != d.col) continue;
    int64_t& c = cursor[size_t(d.rows.owner(j))];
    for (int64_t q = 0; q < width_; ++q)
      for (int64_t r = 0; r < d.rows.block_size(j); ++r)
        buffer_[size_t((j - lo_) * nb_ + r + q * rows_)] = d.all[size_t(c++)];
  }
  d.gathering = false;
  d.on = false;
}

template <class T>
bool WholePanel<T>::test() {
  if (!across_) return true;
  if (!needed_.on) return spread_.test();
  if (!needed_.gathering) {
    if (!spread_.test()) return false;
    start_gather();
  }
  Needed& d = needed_;
  if (!d.complete) {
    int done = 0;
    MPI_Testall(int(d.requests.size()), d.requests.data(), &done, d.statuses.data());
    d.complete = done != 0;
  }
  return d.complete;
}

template <class T>
Status WholePanel<T>::wait() {
  if (!across_) return {};
  if (needed_.on) {
    if (!needed_.gathering) start_gather();
    finish_gather();
    return needed_.arrived;
  }
  Status st = spread_.wait();
  status_ = int(spread_.status());
  return st;
}

template class WholePanel<float>;
template class WholePanel<double>;

}  // namespace commpress::linalg::detail
