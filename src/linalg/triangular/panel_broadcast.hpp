// One block column (or block row) of a block-cyclic matrix brought to every rank of the grid
// for a trailing update (block(i) finds block i; start_own_rows() packs a line's blocks, the
// others keep the whole panel's layout). start(): made whole, in two stages (the
// ranks of the owning line gather it, blocking, then it travels across the other lines as one
// nonblocking broadcast). start_own_rows() and start_needed(): only the blocks each rank's
// update reads, with no gather before the nonblocking broadcast along each line
// (docs/triangular.md, "Bytes moved"). The caller overlaps the broadcast with its
// trailing update (the look-ahead of the right-looking triangular algorithms). A status value
// rides along in the same message (Cholesky's info), so every rank learns it when the panel
// arrives.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "linalg/layout/block_cyclic.hpp"
#include "linalg/triangular/block_bcast.hpp"

namespace commpress::linalg::detail {

// Which blocks: op(A)(i, k) for i in [lo, hi), where op(A)(i, k) is A(i, k) (Column) or
// A(k, i)^T (Row, the block row of A stored as the block column of A^T).
enum class PanelKind : uint8_t { Column, Row };

template <class T>
class WholePanel {
 public:
  WholePanel() = default;
  WholePanel(const WholePanel&) = delete;
  WholePanel& operator=(const WholePanel&) = delete;

  // Collective over the grid (every rank calls with the same k, lo, hi, kind and frames).
  // Returns once this rank's part of stage 1 is done and stage 2 is started; `status` is the
  // value the owning line sends along (every rank of it must pass the same). frames null: raw.
  // across false: stage 1 only (the panel is whole on the owning line, nowhere else).
  void start(const BlockCyclic<T>& a, const LineGrid& g, PanelKind kind, int64_t k, int64_t lo,
             int64_t hi, const Wire* frames, int status = 0, bool across = true);
  // Collective over the grid: each rank receives only the blocks i it holds along (its block
  // rows for Column, its block columns for Row), broadcast across its line by the rank of the
  // owning line that holds them (no gather): block(i) is then valid for those i alone, rows()
  // is their item count. A left solve's update with a column panel reads just those, which
  // then move (procs across - 1) panels in all instead of (all processes - 1).
  void start_own_rows(const BlockCyclic<T>& a, const LineGrid& g, PanelKind kind, int64_t k,
                      int64_t lo, int64_t hi, const Wire* frames);
  // Collective over the grid, Column panels of a symmetric update: each rank receives the
  // blocks its update reads, laid out as in the whole panel (the others stay zero): those of
  // its block rows, broadcast along its process row by the owning column's rank (with the
  // status), then, in wait(), those of its block columns, gathered in its process column from
  // the ranks that received them (ScaLAPACK's pattern: about (pr + pc - 2) panels move in all
  // instead of (pr pc - 1) for whole ones). Compressed, each block is its own frames, and the
  // gather passes on the frames the owning column made: a block is encoded once, carries one
  // codec error wherever it arrives, and is as small on its second hop as on its first.
  void start_needed(const BlockCyclic<T>& a, const LineGrid& g, int64_t k, int64_t lo,
                    int64_t hi, const Wire* frames, int status);
  // Local: sizes the panel of the same blocks as start() would, zero-filled, for a caller that
  // fills it by other means (data(), block()); no transfer, status 0.
  void prepare(const BlockCyclic<T>& a, PanelKind kind, int64_t k, int64_t lo, int64_t hi);
  // Lets MPI progress the broadcast (and start_needed's gather, started as soon as the
  // broadcast has arrived); true once everything has arrived (wait() then returns at once).
  bool test();
  // Local: fails only when a compressed panel does not decode (the panel is then garbage,
  // and the caller goes on to keep the grid's collectives in step).
  Status wait();

  // op(A)(i, k), lo <= i < hi, in the whole panel: rows() x width(), leading dimension rows().
  // After start_own_rows: this line's blocks only, packed in their local order.
  const T* block(int64_t i) const {
    return buffer_.data() + (own_procs_ > 0 ? (i / own_procs_) * nb_ - own_first_ : (i - lo_) * nb_);
  }
  T* data() { return buffer_.data(); }
  int64_t rows() const { return rows_; }
  int64_t width() const { return width_; }
  int status() const { return status_; }
  // Bytes that arrived at this rank: its line's blocks in stage 1, the panel in stage 2.
  int64_t bytes() const { return gathered_ + (across_ ? spread_.bytes() : 0); }

 private:
  std::vector<T> buffer_;
  int64_t lo_ = 0, nb_ = 1, rows_ = 0, width_ = 0;
  int status_ = 0;
  int64_t gathered_ = 0;
  int64_t own_procs_ = 0, own_first_ = 0;  // start_own_rows: the line's procs, first local item
  bool across_ = false;
  // start_needed: the grid and layout the panel is completed with, and the gather in the
  // process column (nonblocking, started once the row's blocks have arrived).
  struct Needed {
    bool on = false, gathering = false;
    CyclicAxis rows, cols;
    int row = 0, col = 0;
    MPI_Comm col_comm = MPI_COMM_NULL;
    const Wire* frames = nullptr;  // compressed: the gather passes the broadcast's frames on
    int tag = 0;                   // of the compressed gather's messages: one per block column
    std::vector<T> own;  // this process row's blocks, one after another, each column-major
    std::vector<int64_t> own_sizes;  // their element counts
    std::vector<T> mine, all;
    std::vector<int> counts, displs;
    comm::detail::Buffer sent;                 // compressed: this rank's blocks' frames
    std::vector<comm::detail::Buffer> frames_from;  // compressed: by process row
    std::vector<MPI_Request> requests;
    std::vector<MPI_Status> statuses;  // theirs once complete (the frames' byte counts)
    bool complete = false;             // the gather's requests, by test() or finish_gather()
    Status arrived;  // the broadcast's outcome, then the gather's
  } needed_;
  void start_gather();   // the row's blocks into place, then the column's gather started
  void finish_gather();  // the column's blocks into place
  // The block indices j of [lo_, hi) that process row `row` holds in this process column, in
  // order (what it contributes to the gather).
  std::vector<int64_t> gathered_from(int row) const;
  void start_frame_gather();
  Status finish_frame_gather();
  BlockBcast<T> spread_;
};

extern template class WholePanel<float>;
extern template class WholePanel<double>;

// Block i (its first bi items) of each panel, side by side into dst with leading dimension ld:
// a panel's columns after those of the panels before it (the operand of an update by all of
// them at once).
template <class T>
void pack_side_by_side(const std::vector<const WholePanel<T>*>& panels, int64_t i, int64_t bi,
                       T* dst, int64_t ld) {
  int64_t q0 = 0;
  for (const WholePanel<T>* p : panels) {
    for (int64_t q = 0; q < p->width(); ++q)
      std::copy(p->block(i) + q * p->rows(), p->block(i) + q * p->rows() + bi,
                dst + (q0 + q) * ld);
    q0 += p->width();
  }
}

}  // namespace commpress::linalg::detail
