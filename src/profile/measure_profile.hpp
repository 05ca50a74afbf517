// Measuring this machine for the cost models (`commpress profile`): alpha and beta of the
// link between ranks 0 and 1 by a ping-pong sweep and a fit on each side of the eager /
// rendezvous switch, gamma from a local sum, and the codecs' compress / decompress /
// combine / combine_raw rates on random-walk data, measured on every rank at once (the
// slowest rank's numbers are kept, since collectives wait for it).
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "comm/probe/codec_rates.hpp"
#include "comm/select.hpp"
#include "commpress/model.hpp"
#include "commpress/status.hpp"

namespace commpress::profile {

struct ProfileOptions {
  // The codec modes Auto weighs (docs/szp-modes.md) and the other lossy codecs of the
  // applications' study, so that the model predicts each of them (a codec without rates gets
  // no prediction and no compressed candidate); the tool adds the ones asked for.
  std::vector<std::string> codecs = {comm::detail::kFastMode, comm::detail::kEntropyMode,
                                     "pred-byte", "pred-bit"};
  std::vector<double> rel_bounds = {1e-2, 1e-3, 1e-4};
  double max_message_bytes = 64.0 * (1 << 20);  // ping-pong sweep 8 B .. this
  size_t codec_elements = size_t{4} << 20;       // elements per codec measurement
  double eager_limit = 0;                        // 0 = find the knee in the sweep
  std::function<void(const std::string&)> progress;  // rank 0's progress lines (may be empty)
};

using comm::probe::CodecRow;  // one codec measurement at one bound

struct ProfileReport {
  model::MachineProfile profile;
  std::vector<model::Sample> pingpong;  // one-way seconds per message size
  std::vector<CodecRow> codec_rows;
  int ranks = 0;
  int nodes = 0;
  bool pair_shares_node = false;  // ranks 0 and 1 on one node: the link is intra-node
  std::string host;
  // The BLAS the local product rates were measured with (library, version, kernel; a generic
  // fallback kernel named with its remedy). Empty in a build without the multiply.
  std::string blas;
};

// Collective over comm (at least 2 ranks). Every rank returns the same profile.
Result<ProfileReport> measure_profile(MPI_Comm comm, const ProfileOptions& opts);

}  // namespace commpress::profile
