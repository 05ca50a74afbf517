#include "linalg/gemm/panel_stream.hpp"

#include <algorithm>
#include <span>
#include <string>

namespace commpress::linalg::detail {

template <class T>
Result<PanelStream<T>> PanelStream<T>::create(MPI_Comm comm, const std::string& codec,
                                              const codec::ErrorBound& bound, bool overlap) {
  auto bc = BlockCodec::create(codec, bound);
  if (!bc.ok()) return bc.status();
  PanelStream<T> s;
  s.comm_ = comm;
  MPI_Comm_rank(comm, &s.rank_);
  MPI_Comm_size(comm, &s.size_);
  s.overlap_ = overlap;
  s.codec_ = std::move(*bc);
  return s;
}

template <class T>
void PanelStream<T>::post(int slot, size_t panel, int root, int64_t rows, int64_t cols,
                          const PieceSource& source) {
  Slot& s = slots_[slot];
  s.rows = rows;
  s.cols = cols;
  s.request = MPI_REQUEST_NULL;
  const int64_t n = rows * cols;
  if (n == 0) return;  // every rank of comm shares this piece's shape, so all skip alike
  const bool raw = codec_.raw();
  const uint64_t raw_size = uint64_t(n) * sizeof(T);
  if (rank_ == root) {
    const Status st = source(panel, codec_, s.bytes);
    note(st);
    if (!st.ok()) s.bytes.assign(raw ? raw_size : 0, std::byte{0});
    if (raw && s.bytes.size() != raw_size) {
      note({ErrorCode::mismatch, "summa: raw panel piece of " + std::to_string(s.bytes.size()) +
                                     " bytes, expected " + std::to_string(raw_size)});
      s.bytes.assign(raw_size, std::byte{0});
    }
  }
  if (size_ == 1) return;
  if (raw) {
    s.bytes.resize(raw_size);
  } else {
    s.length = s.bytes.size();
    MPI_Bcast(&s.length, 1, MPI_UINT64_T, root, comm_);
    s.bytes.resize(s.length);
  }
  if (rank_ == root) {
    traffic_.raw_bytes += raw_size;
    traffic_.bytes_sent += s.bytes.size() + (raw ? 0 : sizeof(uint64_t));
  }
  // Sizes were checked against INT_MAX before the first panel (codec bound of the largest piece).
  if (overlap_)
    MPI_Ibcast(s.bytes.data(), int(s.bytes.size()), MPI_BYTE, root, comm_, &s.request);
  else
    MPI_Bcast(s.bytes.data(), int(s.bytes.size()), MPI_BYTE, root, comm_);
}

template <class T>
const T* PanelStream<T>::finish(int slot) {
  Slot& s = slots_[slot];
  if (s.request != MPI_REQUEST_NULL) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
  const int64_t n = s.rows * s.cols;
  if (n == 0) return nullptr;
  // Raw bytes are the packed piece itself (vector storage is aligned for any T).
  if (codec_.raw()) return reinterpret_cast<const T*>(s.bytes.data());
  s.values.resize(size_t(n));
  const Status st = codec_.decode<T>(std::span<const std::byte>(s.bytes), s.values.data(), s.rows,
                                     s.rows, s.cols);
  note(st);
  if (!st.ok()) std::fill(s.values.begin(), s.values.end(), T(0));
  return s.values.data();
}

template <class T>
void PanelStream<T>::progress() {
  for (Slot& s : slots_)
    if (s.request != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&s.request, &done, MPI_STATUS_IGNORE);
    }
}

template <class T>
uint64_t PanelStream<T>::buffer_bytes() const {
  uint64_t total = 0;
  for (const Slot& s : slots_) total += s.bytes.capacity() + s.values.capacity() * sizeof(T);
  return total;
}

template class PanelStream<float>;
template class PanelStream<double>;

}  // namespace commpress::linalg::detail
