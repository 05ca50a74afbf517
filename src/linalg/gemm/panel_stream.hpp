// One operand's panel pieces travelling along one communicator of the grid (op(A)'s along a
// grid row, op(B)'s along a grid column). The piece's owner encodes it once (raw packing or a
// codec frame); for compressed pieces it broadcasts the byte length, then the bytes; every
// rank, the owner included, decodes the same bytes, so all ranks multiply the same values.
// Two slots let the next panel's broadcast run (MPI_Ibcast) while the current one is used.
//
// Traffic convention: a broadcast counts once, on its root, as the bytes of the piece (plus
// the 8-byte length word when compressed); how MPI forwards them inside its tree is not
// counted. raw_bytes counts the piece's uncompressed size for the same broadcasts.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "commpress/status.hpp"
#include "linalg/gemm/block_codec.hpp"

namespace commpress::linalg::detail {

struct PanelTraffic {
  uint64_t raw_bytes = 0;
  uint64_t bytes_sent = 0;
  uint64_t memory_bytes = 0;
};

// Called on a piece's owner only: writes the encoded piece of panel `panel` into out with the
// given codec (which packs raw when the stream is uncompressed).
using PieceSource =
    std::function<Status(size_t panel, BlockCodec& codec, std::vector<std::byte>& out)>;

template <class T>
class PanelStream {
 public:
  // codec: "none" or a registry name (bound: the absolute input bound for lossy codecs).
  static Result<PanelStream> create(MPI_Comm comm, const std::string& codec,
                                    const codec::ErrorBound& bound, bool overlap);

  BlockCodec& codec() { return codec_; }

  // Starts moving the rows x cols piece of `panel` from comm rank `root` into slot (0 or 1).
  // Every rank of comm calls it with the same arguments, in the same order.
  void post(int slot, size_t panel, int root, int64_t rows, int64_t cols,
            const PieceSource& source);
  // Completes the slot: the piece column-major with ld = rows, or nullptr when it is empty.
  const T* finish(int slot);
  // Lets MPI advance pending broadcasts (Open MPI moves nonblocking collectives only inside
  // MPI calls), without waiting.
  void progress();

  // The first failure seen. A failing rank keeps taking part in every broadcast (with empty or
  // zero data), so no peer is left waiting; the caller reports the status afterwards.
  const Status& status() const { return status_; }
  uint64_t buffer_bytes() const;
  const PanelTraffic& traffic() const { return traffic_; }

 private:
  struct Slot {
    std::vector<std::byte> bytes;
    std::vector<T> values;
    uint64_t length = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    int64_t rows = 0, cols = 0;
  };
  void note(const Status& st) {
    if (status_.ok() && !st.ok()) status_ = st;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool overlap_ = true;
  BlockCodec codec_;
  Slot slots_[2];
  Status status_;
  PanelTraffic traffic_;
};

}  // namespace commpress::linalg::detail
