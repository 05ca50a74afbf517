#include "linalg/gemm/panel_stream.hpp"

#include <algorithm>
#include <string>

namespace commpress::linalg::detail {

template <class T>
Result<PanelStream<T>> PanelStream<T>::create(MPI_Comm comm, const std::string& codec,
                                              const codec::ErrorBound& bound, bool overlap) {
  auto wire = block_wire<T>(codec, bound);
  if (!wire.ok()) return wire.status();
  PanelStream<T> s;
  s.comm_ = comm;
  MPI_Comm_rank(comm, &s.rank_);
  s.overlap_ = overlap;
  s.wire_ = std::move(*wire);
  return s;
}

template <class T>
void PanelStream<T>::post(int slot, size_t panel, int root, int64_t rows, int64_t cols,
                          const PieceSource& source) {
  Slot& s = slots_[slot];
  s.rows = rows;
  s.cols = cols;
  const int64_t n = rows * cols;
  if (n == 0) return;  // every rank of comm shares this piece's shape, so all skip alike
  const bool raw = !wire_.compressed();
  const uint64_t raw_size = uint64_t(n) * sizeof(T);
  if (rank_ == root) {
    const Status st = source(panel, wire_, s.bytes);
    note(st);
    if (!st.ok()) s.bytes.assign(raw ? raw_size : 0, std::byte{0});
    if (raw && s.bytes.size() != raw_size) {
      note({ErrorCode::mismatch, "summa: raw panel piece of " + std::to_string(s.bytes.size()) +
                                     " bytes, expected " + std::to_string(raw_size)});
      s.bytes.assign(raw_size, std::byte{0});
    }
  } else if (raw) {
    s.bytes.resize(raw_size);
  }
  // Sizes were checked against INT_MAX before the first panel (codec bound of the largest piece).
  using comm::detail::BcastLength;
  note(s.bcast.start(s.bytes, raw ? BcastLength::known : BcastLength::sent,
                     wire_.frame_capacity(size_t(n)), raw_size, root, comm_, !overlap_,
                     traffic_));
}

template <class T>
const T* PanelStream<T>::finish(int slot) {
  Slot& s = slots_[slot];
  const int64_t n = s.rows * s.cols;
  if (n == 0) return nullptr;
  note(s.bcast.finish());
  // Raw bytes are the packed piece itself (the buffer's storage is aligned for any T).
  if (!wire_.compressed()) return reinterpret_cast<const T*>(s.bytes.data());
  s.values.resize(size_t(n));
  const Status st = wire_.decode(s.bytes, s.values.data(), size_t(n));
  note(st);
  if (!st.ok()) std::fill(s.values.begin(), s.values.end(), T(0));
  return s.values.data();
}

template <class T>
void PanelStream<T>::progress() {
  for (Slot& s : slots_) note(s.bcast.progress());
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
