// What every reduction algorithm works with: the group it runs on, how data travels, the op,
// and where traffic and the first local failure are recorded. An algorithm keeps the message
// pattern intact on local failures (frame_transport.hpp) and returns only MPI errors early.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "comm/algorithms/parts/reduce_layout.hpp"
#include "comm/transport/frame_transport.hpp"
#include "comm/transport/wire.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

using Bytes = std::vector<std::byte>;

struct ReduceContext {
  MPI_Comm comm;         // a private communicator (or one split from it)
  int rank;
  int size;
  Wire wire;             // with the per-step bound already planned
  Op op;
  size_t break_even;     // bytes below which a transfer goes raw (Rabenseifner)
  Traffic& traffic;
  Status& first;         // the first local failure; the pattern goes on regardless

  // The same context on another group (hierarchical phases).
  ReduceContext on(MPI_Comm c, int r, int s) const {
    return {c, r, s, wire, op, break_even, traffic, first};
  }
  // Raw bytes with the same chunking as wire.
  Wire raw_wire() const {
    return Wire::uncompressed(wire.dtype()).with_chunk_elems(wire.chunk_elems());
  }
  void fail(const Status& st, const std::string& where) const { keep_first(first, st, where); }
};

// An empty message stands in for a frame its sender could not produce, and that sender has
// recorded why. The receiver passes the failure on without recording one of its own, so the
// verdict all ranks agree on names the cause, not its echoes. (No frame and no raw chunk of
// at least one element is ever empty.)
inline bool upstream_failed(std::span<const std::byte> message) { return message.empty(); }

// One rank's finished block of the result, in the encoding it travels in: one frame per
// chunk of `wire` (raw bytes when the wire is uncompressed).
struct OwnedBlock {
  Wire wire;
  size_t begin = 0;  // element offset in the whole vector
  size_t n = 0;
  std::vector<Bytes> chunks;
};

}  // namespace commpress::comm::detail
