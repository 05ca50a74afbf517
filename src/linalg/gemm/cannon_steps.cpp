#include "linalg/gemm/cannon_steps.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

namespace {

int layer_rank(GridPos p, int q) { return p.row * q + p.col; }

}  // namespace

template <class T>
CannonSteps<T>::CannonSteps(const GemmCall<T>& call, BlockCodec a, BlockCodec b)
    : call_(&call),
      layout_(call.grid->rows(), call.m, call.n, call.k, call.transa, call.transb),
      pos_{call.grid->row(), call.grid->col()},
      a_codec_(std::move(a)),
      b_codec_(std::move(b)) {}

template <class T>
Result<CannonSteps<T>> CannonSteps<T>::create(const GemmCall<T>& call) {
  auto a = BlockCodec::create(call.codec_a, call.block_bound_a);
  if (!a.ok()) return a.status();
  auto b = BlockCodec::create(call.codec_b, call.block_bound_b);
  if (!b.ok()) return b.status();
  CannonSteps s(call, std::move(*a), std::move(*b));
  const codec::Dtype d = codec::dtype_of<T>();
  const int64_t a_max = s.layout_.a_max_elements(), b_max = s.layout_.b_max_elements();
  const size_t a_cap = s.a_codec_.max_bytes(a_max, d), b_cap = s.b_codec_.max_bytes(b_max, d);
  COMMPRESS_RETURN_IF_ERROR(check_message_capacity(a_cap, "A"));
  COMMPRESS_RETURN_IF_ERROR(check_message_capacity(b_cap, "B"));
  for (EncodedBlock& e : s.a_) e.bytes.resize(a_cap);
  for (EncodedBlock& e : s.b_) e.bytes.resize(b_cap);
  s.work_a_.resize(size_t(std::max<int64_t>(1, a_max)));
  s.work_b_.resize(size_t(std::max<int64_t>(1, b_max)));
  return s;
}

namespace {

// Encodes a local block into e without giving up e's capacity (it later receives blocks).
template <class T>
Status encode_into(BlockCodec& codec, const T* data, int64_t ld, BlockShape shape,
                   EncodedBlock& e) {
  const size_t capacity = e.bytes.size();
  e.size = 0;
  Status st = codec.encode(data, ld, shape.rows, shape.cols, e.bytes);
  const size_t size = e.bytes.size();
  e.bytes.resize(std::max(capacity, size));
  if (!st.ok()) return st;
  if (size > capacity)
    return {ErrorCode::internal, "block encoded to " + std::to_string(size) +
                                     " bytes, above the codec's bound of " +
                                     std::to_string(capacity)};
  e.size = size;
  return {};
}

}  // namespace

template <class T>
void CannonSteps<T>::encode_local() {
  const DistMatrix<T>&a = *call_->a, &b = *call_->b;
  keep(encode_into(a_codec_, a.data, a.ld, held_a_shape(), a_[0]));
  keep(encode_into(b_codec_, b.data, b.ld, held_b_shape(), b_[0]));
}

template <class T>
Status CannonSteps<T>::skew(int first) {
  const int q = layout_.q();
  const MPI_Comm comm = call_->grid->layer_comm();
  const GridPos a_to = layout_.a_destination(pos_, first), b_to = layout_.b_destination(pos_, first);
  BlockExchange xa, xb;
  COMMPRESS_RETURN_IF_ERROR(xa.post(comm, layer_rank(a_to, q),
                                    layer_rank(layout_.a_source(pos_, first), q), kTagSkewA,
                                    a_[0], a_[1]));
  COMMPRESS_RETURN_IF_ERROR(xb.post(comm, layer_rank(b_to, q),
                                    layer_rank(layout_.b_source(pos_, first), q), kTagSkewB,
                                    b_[0], b_[1]));
  COMMPRESS_RETURN_IF_ERROR(xa.wait());
  COMMPRESS_RETURN_IF_ERROR(xb.wait());
  if (layer_rank(a_to, q) != layer_rank(pos_, q)) count(held_a_shape(), a_[0].size);
  if (layer_rank(b_to, q) != layer_rank(pos_, q)) count(held_b_shape(), b_[0].size);
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
Status CannonSteps<T>::post_shift(BlockExchange& xa, BlockExchange& xb) {
  const Neighbours nb = neighbours();
  COMMPRESS_RETURN_IF_ERROR(
      xa.post(call_->grid->row_comm(), nb.left, nb.right, kTagShiftA, a_[0], a_[1]));
  return xb.post(call_->grid->col_comm(), nb.up, nb.down, kTagShiftB, b_[0], b_[1]);
}

template <class T>
Status CannonSteps<T>::finish_shift(int step, BlockExchange& xa, BlockExchange& xb) {
  if (xa.posted()) {
    COMMPRESS_RETURN_IF_ERROR(xa.wait());
    COMMPRESS_RETURN_IF_ERROR(xb.wait());
  } else {
    const Neighbours nb = neighbours();
    // B's exchange runs even when A's failed: its peers are waiting for it.
    const Status a = exchange_blocking(call_->grid->row_comm(), nb.left, nb.right, kTagShiftA,
                                       a_[0], a_[1]);
    const Status b = exchange_blocking(call_->grid->col_comm(), nb.up, nb.down, kTagShiftB,
                                       b_[0], b_[1]);
    COMMPRESS_RETURN_IF_ERROR(a);
    COMMPRESS_RETURN_IF_ERROR(b);
  }
  const int kk = layout_.k_block(pos_, step);
  count(layout_.a_shape(pos_.row, kk), a_[0].size);
  count(layout_.b_shape(kk, pos_.col), b_[0].size);
  std::swap(a_[0], a_[1]);
  std::swap(b_[0], b_[1]);
  return {};
}

// The product runs in panels of C's columns so that the posted shifts can progress between
// them. The panels depend only on the block's shape (never on overlap or the codec), so every
// variant performs the same products in the same order and lossless runs stay bit-identical.
template <class T>
void CannonSteps<T>::multiply(int step, T beta, T* c, int64_t ldc, BlockExchange& xa,
                              BlockExchange& xb) {
  if (!failure_.ok()) return;  // the transfers go on; the result is lost anyway
  const int kk = layout_.k_block(pos_, step);
  const BlockShape sa = layout_.a_shape(pos_.row, kk), sb = layout_.b_shape(kk, pos_.col);
  keep(a_codec_.decode(a_[0].view(), work_a_.data(), sa.ld(), sa.rows, sa.cols));
  keep(b_codec_.decode(b_[0].view(), work_b_.data(), sb.ld(), sb.rows, sb.cols));
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
    BlockExchange xa, xb;
    if (more && overlap) keep(post_shift(xa, xb));
    multiply(t, t == first ? beta : T(1), c, ldc, xa, xb);
    if (more) keep(finish_shift(t, xa, xb));
  }
  return failure_;
}

template <class T>
uint64_t CannonSteps<T>::memory_bytes() const {
  uint64_t bytes = (work_a_.size() + work_b_.size()) * sizeof(T);
  for (const EncodedBlock& e : a_) bytes += e.bytes.size();
  for (const EncodedBlock& e : b_) bytes += e.bytes.size();
  return bytes;
}

template class CannonSteps<float>;
template class CannonSteps<double>;

}  // namespace commpress::linalg::detail
