// One message from a root to every rank of a communicator through MPI's own broadcast (MPI's
// tree, not commpress's): how the distributed multiply ships an encoded block along a grid line
// or to the other layers. A message whose length only the root knows (a codec frame) travels as
// its length (one uint64_t, blocking) and then its bytes; one whose length every rank knows (a
// raw block of an agreed shape) as its bytes alone. The bytes' broadcast may be nonblocking
// (MPI_Ibcast), so the caller computes while they move.
//
// Traffic convention: a broadcast counts once, on its root, as the message's bytes (plus the
// 8-byte length word where one is sent) standing for `raw` uncompressed bytes; how MPI forwards
// them inside its tree is not counted. On a communicator of one rank nothing moves or counts.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "comm/transport/buffer.hpp"
#include "comm/transport/frame_transport.hpp"
#include "commpress/status.hpp"

namespace commpress::comm::detail {

// Whether receivers already know the message's length (bytes.size() on every rank), or it is
// broadcast first.
enum class BcastLength : uint8_t { known, sent };

// The nonblocking form: start posts (after the blocking length, where one is sent), finish
// waits. `bytes` must stay untouched until finish; a started broadcast must be finished, and
// every rank of comm starts the same broadcasts in the same order.
class PendingBcast {
 public:
  // bytes: the root's message; elsewhere resized to the length that arrives. capacity: the
  // longest message receivers accept, the same on every rank: a longer one fails every rank
  // alike (internal error) and no bytes move. blocking: the bytes go by MPI_Bcast (then finish
  // only reports), else by MPI_Ibcast.
  Status start(Buffer& bytes, BcastLength length, size_t capacity, uint64_t raw, int root,
               MPI_Comm comm, bool blocking, Traffic& traffic);
  // Lets MPI advance the broadcast without waiting (Open MPI moves nonblocking collectives
  // only inside MPI calls).
  Status progress();
  Status finish();

 private:
  MPI_Request req_ = MPI_REQUEST_NULL;
};

// The blocking form.
Status bcast_frame(Buffer& bytes, BcastLength length, size_t capacity, uint64_t raw, int root,
                   MPI_Comm comm, Traffic& traffic);

}  // namespace commpress::comm::detail
