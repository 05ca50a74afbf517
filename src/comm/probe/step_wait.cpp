#include "comm/probe/step_wait.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "comm/probe/timing.hpp"
#include "comm/session/private_comm.hpp"
#include "commpress/codec.hpp"

namespace commpress::comm::probe {

Result<double> measure_step_wait(MPI_Comm comm, double alpha, int rounds, int runs) {
  const codec::Codec* szp = codec::find_codec("szp");
  if (!szp) return -1.0;
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  constexpr int kTag = 0x7e1;
  constexpr size_t n = size_t{64} << 10;
  const auto data = random_walk<float>(n, 21);
  auto eb = codec::resolve_abs_bound(data.data(), n, codec::Dtype::f32,
                                     codec::ErrorBound::relative(1e-4));
  if (!eb.ok()) return eb.status();
  codec::Workspace ws;
  std::vector<std::byte> frame;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  auto per_round = [&](bool exchange) -> Result<double> {
    double best = INFINITY;
    for (int run = 0; run < runs; ++run) {
      COMMPRESS_MPI(MPI_Barrier(comm));
      const double t0 = MPI_Wtime();  // MPI's clock: the simulated one under SMPI (ping_pong.cpp)
      for (int k = 0; k < rounds; ++k) {
        COMMPRESS_RETURN_IF_ERROR(szp->compress(data.data(), n, codec::Dtype::f32,
                                                codec::ErrorBound::absolute(*eb), frame, ws));
        double token = k, got = 0;
        if (exchange)
          COMMPRESS_MPI(MPI_Sendrecv(&token, 1, MPI_DOUBLE, right, kTag, &got, 1, MPI_DOUBLE,
                                     left, kTag, comm, MPI_STATUS_IGNORE));
      }
      double t = (MPI_Wtime() - t0) / rounds;
      COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
      best = std::min(best, t);
    }
    return best;
  };
  auto alone = per_round(false);
  if (!alone.ok()) return alone.status();
  auto with = per_round(true);
  if (!with.ok()) return with.status();
  return std::max(0.0, *with - *alone - alpha);
}

}  // namespace commpress::comm::probe
