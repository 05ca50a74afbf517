#include "linalg/gemm/cannon_steps.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

namespace {

int layer_rank(GridPos p, int q) { return p.row * q + p.col; }

// Message tags of the block transfers (on the grid's private communicators).
enum ShiftTag : int {
  kTagSkewA = 0x4341,
  kTagSkewB = 0x4342,
  kTagShiftA = 0x4343,
  kTagShiftB = 0x4344,
};

}  // namespace

template <class T>
CannonSteps<T>::CannonSteps(const GemmCall<T>& call, Wire a, Wire b)
    : call_(&call),
      layout_(call.grid->rows(), call.m, call.n, call.k, call.transa, call.transb),
      pos_{call.grid->row(), call.grid->col()},
      a_wire_(std::move(a)),
      b_wire_(std::move(b)) {}

template <class T>
Result<CannonSteps<T>> CannonSteps<T>::create(const GemmCall<T>& call) {
  auto a = block_wire<T>(call.codec_a, call.block_bound_a);
  if (!a.ok()) return a.status();
  auto b = block_wire<T>(call.codec_b, call.block_bound_b);
  if (!b.ok()) return b.status();
  CannonSteps s(call, std::move(*a), std::move(*b));
  const int64_t a_max = s.layout_.a_max_elements(), b_max = s.layout_.b_max_elements();
  s.a_cap_ = s.a_wire_.frame_capacity(size_t(a_max));
  s.b_cap_ = s.b_wire_.frame_capacity(size_t(b_max));
  COMMPRESS_RETURN_IF_ERROR(check_message_capacity(s.a_cap_, "A"));
  COMMPRESS_RETURN_IF_ERROR(check_message_capacity(s.b_cap_, "B"));
  // Every buffer is sized once for the largest frame; receives learn the real size from the
  // message, so nothing is reallocated while the blocks circulate.
  for (Buffer& e : s.a_) e.reserve(s.a_cap_);
  for (Buffer& e : s.b_) e.reserve(s.b_cap_);
  s.work_a_.resize(size_t(std::max<int64_t>(1, a_max)));
  s.work_b_.resize(size_t(std::max<int64_t>(1, b_max)));
  return s;
}

template <class T>
void CannonSteps<T>::encode_local() {
  const DistMatrix<T>&a = *call_->a, &b = *call_->b;
  const BlockShape sa = held_a_shape(), sb = held_b_shape();
  keep(encode_block_frame(a_wire_, a.data, a.ld, sa.rows, sa.cols, a_[0]));
  keep(encode_block_frame(b_wire_, b.data, b.ld, sb.rows, sb.cols, b_[0]));
}

template <class T>
Status CannonSteps<T>::skew(int first) {
  const int q = layout_.q();
  const MPI_Comm comm = call_->grid->layer_comm();
  const int me = layer_rank(pos_, q);
  const int a_to = layer_rank(layout_.a_destination(pos_, first), q);
  const int b_to = layer_rank(layout_.b_destination(pos_, first), q);
  Traffic to_self;  // a block that stays on this rank crosses no link
  PendingExchange xa, xb;
  COMMPRESS_RETURN_IF_ERROR(xa.start(a_[0], raw(held_a_shape()), a_to, a_[1], a_cap_,
                                     layer_rank(layout_.a_source(pos_, first), q), kTagSkewA,
                                     comm, a_to == me ? to_self : traffic_));
  COMMPRESS_RETURN_IF_ERROR(xb.start(b_[0], raw(held_b_shape()), b_to, b_[1], b_cap_,
                                     layer_rank(layout_.b_source(pos_, first), q), kTagSkewB,
                                     comm, b_to == me ? to_self : traffic_));
  const Status a = xa.finish();
  const Status b = xb.finish();
  COMMPRESS_RETURN_IF_ERROR(a);
  COMMPRESS_RETURN_IF_ERROR(b);
  std::swap(a_[0], a_[1]);
  std::swap(b_[0], b_[1]);
  return {};
}

// A moves one column left, B one row up. With overlap the exchanges are posted before the
// step's product and completed after it; without, they run after it, blocking.
template <class T>
typename CannonSteps<T>::Neighbours CannonSteps<T>::neighbours() const {
  const int q = layout_.q();
  return {(pos_.col + q - 1) % q, (pos_.col + 1) % q, (pos_.row + q - 1) % q,
          (pos_.row + 1) % q};
}

template <class T>
Status CannonSteps<T>::post_shift(int step, PendingExchange& xa, PendingExchange& xb) {
  const Neighbours nb = neighbours();
  const int kk = layout_.k_block(pos_, step);
  COMMPRESS_RETURN_IF_ERROR(xa.start(a_[0], raw(layout_.a_shape(pos_.row, kk)), nb.left, a_[1],
                                     a_cap_, nb.right, kTagShiftA, call_->grid->row_comm(),
                                     traffic_));
  return xb.start(b_[0], raw(layout_.b_shape(kk, pos_.col)), nb.up, b_[1], b_cap_, nb.down,
                  kTagShiftB, call_->grid->col_comm(), traffic_);
}

template <class T>
Status CannonSteps<T>::finish_shift(int step, bool posted, PendingExchange& xa,
                                    PendingExchange& xb) {
  // Blocking: post and finish at once. B's exchange completes even when A's failed: its
  // peers are waiting for it.
  const Status started = posted ? Status{} : post_shift(step, xa, xb);
  const Status a = xa.finish();
  const Status b = xb.finish();
  COMMPRESS_RETURN_IF_ERROR(started);
  COMMPRESS_RETURN_IF_ERROR(a);
  COMMPRESS_RETURN_IF_ERROR(b);
  std::swap(a_[0], a_[1]);
  std::swap(b_[0], b_[1]);
  return {};
}

// The product runs in panels of C's columns so that the posted shifts can progress between
// them. The panels depend only on the block's shape (never on overlap or the codec), so every
// variant performs the same products in the same order and lossless runs stay bit-identical.
template <class T>
void CannonSteps<T>::multiply(int step, T beta, T* c, int64_t ldc, PendingExchange& xa,
                              PendingExchange& xb) {
  if (!failure_.ok()) return;  // the transfers go on; the result is lost anyway
  const int kk = layout_.k_block(pos_, step);
  const BlockShape sa = layout_.a_shape(pos_.row, kk), sb = layout_.b_shape(kk, pos_.col);
  // A block arrives contiguous (ld = rows), which is how its product reads it.
  keep(a_wire_.decode(a_[0], work_a_.data(), size_t(sa.elements())));
  keep(b_wire_.decode(b_[0], work_b_.data(), size_t(sb.elements())));
  if (!failure_.ok()) return;
  const int64_t mi = layout_.m_size(pos_.row), nj = layout_.n_size(pos_.col);
  constexpr int64_t kMinPanel = 64, kMaxPanels = 8;
  const int64_t width = std::max(kMinPanel, (nj + kMaxPanels - 1) / kMaxPanels);
  const bool b_rows_are_columns = call_->transb == Trans::T;  // stored n x k
  for (int64_t j0 = 0; j0 < nj; j0 += width) {
    const int64_t w = std::min(width, nj - j0);
    const T* b = work_b_.data() + (b_rows_are_columns ? j0 : j0 * sb.ld());
    local_gemm(call_->transa, call_->transb, mi, w, layout_.k_size(kk), call_->alpha,
               work_a_.data(), sa.ld(), b, sb.ld(), beta, c + j0 * ldc, ldc);
    keep(xa.progress());
    keep(xb.progress());
  }
}

template <class T>
Status CannonSteps<T>::run(int first, int last, T beta, T* c, int64_t ldc) {
  if (first >= last) return {};
  // A failed transfer is kept like a failed decode: leaving the loop early would leave the
  // layer's other ranks waiting in their next shift, and the other layers in the reduction.
  keep(skew(first));
  const bool overlap = call_->plan->overlap;
  for (int t = first; t < last; ++t) {
    const bool more = t + 1 < last;
    PendingExchange xa, xb;
    const bool posted = more && overlap;
    if (posted) keep(post_shift(t, xa, xb));
    multiply(t, t == first ? beta : T(1), c, ldc, xa, xb);
    if (more) keep(finish_shift(t, posted, xa, xb));
  }
  return failure_;
}

template <class T>
uint64_t CannonSteps<T>::memory_bytes() const {
  uint64_t bytes = (work_a_.size() + work_b_.size()) * sizeof(T);
  for (const Buffer& e : a_) bytes += e.capacity();
  for (const Buffer& e : b_) bytes += e.capacity();
  return bytes;
}

template class CannonSteps<float>;
template class CannonSteps<double>;

}  // namespace commpress::linalg::detail
