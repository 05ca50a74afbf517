// One operand's panel pieces travelling along one communicator of the grid (op(A)'s along a
// grid row, op(B)'s along a grid column). The piece's owner encodes it once (a block frame of
// the operand's Wire: raw packing or one codec frame); it travels by comm's frame broadcast
// (comm/transport/frame_bcast.hpp: a compressed piece's length, then its bytes), and every
// rank, the owner included, decodes the same bytes, so all ranks multiply the same values.
// Two slots let the next panel's broadcast run (MPI_Ibcast) while the current one is used.
// Traffic follows the frame broadcast's convention: once, on the root.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "comm/transport/buffer.hpp"
#include "comm/transport/frame_bcast.hpp"
#include "comm/transport/frame_transport.hpp"
#include "commpress/status.hpp"
#include "linalg/gemm/block_frame.hpp"

namespace commpress::linalg::detail {

using comm::detail::Buffer;
using comm::detail::Traffic;

// What a SUMMA run reports: its traffic and the memory its buffers held.
struct SummaTally {
  Traffic traffic;
  uint64_t memory_bytes = 0;
};

// Called on a piece's owner only: writes the encoded piece of panel `panel` into out with the
// stream's wire (which packs raw when the stream is uncompressed).
using PieceSource = std::function<Status(size_t panel, const Wire& wire, Buffer& out)>;

template <class T>
class PanelStream {
 public:
  // codec: "none" or a registry name (bound: the absolute input bound for lossy codecs).
  static Result<PanelStream> create(MPI_Comm comm, const std::string& codec,
                                    const codec::ErrorBound& bound, bool overlap);

  const Wire& wire() const { return wire_; }

  // Starts moving the rows x cols piece of `panel` from comm rank `root` into slot (0 or 1).
  // Every rank of comm calls it with the same arguments, in the same order.
  void post(int slot, size_t panel, int root, int64_t rows, int64_t cols,
            const PieceSource& source);
  // Completes the slot: the piece column-major with ld = rows, or nullptr when it is empty.
  const T* finish(int slot);
  // Lets MPI advance pending broadcasts, without waiting.
  void progress();

  // The first failure seen. A failing rank keeps taking part in every broadcast (with empty or
  // zero data), so no peer is left waiting; the caller reports the status afterwards.
  const Status& status() const { return status_; }
  uint64_t buffer_bytes() const;
  const Traffic& traffic() const { return traffic_; }

 private:
  struct Slot {
    Buffer bytes;
    std::vector<T> values;
    comm::detail::PendingBcast bcast;
    int64_t rows = 0, cols = 0;
  };
  void note(const Status& st) {
    if (status_.ok() && !st.ok()) status_ = st;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  bool overlap_ = true;
  Wire wire_;
  Slot slots_[2];
  Status status_;
  Traffic traffic_;
};

}  // namespace commpress::linalg::detail
