// The two ends of a point-to-point transfer on the caller's communicator and tag. A
// compressed transfer is a header message (p2p_header.hpp) then one message per chunk
// frame, all on the same tag, so MPI's ordering keeps them in sequence. Algorithm::Mpi sends
// the plain array in one message. Whatever either side asked for, the receiver consumes
// exactly the messages the sender sent (probing first, so nothing is ever truncated) and
// reports a disagreement as ErrorCode::mismatch naming both values.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "comm/transport/frame_transport.hpp"
#include "comm/transport/matched_probe.hpp"
#include "comm/transport/p2p_header.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// One side's arguments, checked locally.
struct Endpoint {
  size_t count = 0;
  Dtype dtype = Dtype::u8;
  Algorithm algorithm = Algorithm::Direct;  // Direct or Mpi
  codec::ErrorBound bound;
  Wire wire;  // the chunks' wire; meaningful when local is ok and algorithm is Direct
  // Set when Auto found that compressing would not pay: the codec's wire, announced in the
  // header (so both sides' codec and bound are still checked) while `wire` is uncompressed.
  std::optional<Wire> declined;
  const Wire& announced() const { return declined ? *declined : wire; }
  Status local;                  // this side's own argument errors
  double predicted_seconds = 0;  // the cost model's estimate (Report::predicted_seconds)
};
Endpoint make_endpoint(const void* buf, size_t count, Dtype dtype, const Options& opts);

// The sender's header: its layout, the bound resolved on its data, or its local failure
// (then no chunk messages follow). Updates e.wire with the resolved bound.
MessageHeader sender_header(Endpoint& e, const void* buf);

// How a receive goes on once its opening message has been matched (msg, st).
struct Opening {
  Status verdict;        // an error ends the receive (the sender's messages were drained)
  bool stream = false;   // chunk frames follow: receive them with wire from source/tag
  Wire wire;
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
};
Opening open_transfer(const Endpoint& me, void* buf, ProbedMessage& msg, const MPI_Status& st,
                      MPI_Comm comm);

Report p2p_report(const Endpoint& e, const Wire& wire, const Traffic& traffic);

}  // namespace commpress::comm::detail
