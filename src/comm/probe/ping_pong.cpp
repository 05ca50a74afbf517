#include "comm/probe/ping_pong.hpp"

#include <algorithm>
#include <cmath>

#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
constexpr int kTag = 0x7e0;
}  // namespace

Result<double> ping_pong(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                         double target_seconds, int min_reps, int max_reps) {
  auto round_trip = [&]() -> Status {
    if (rank == 0) {
      COMMPRESS_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 1, kTag, pair));
      COMMPRESS_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 1, kTag, pair, MPI_STATUS_IGNORE));
    } else {
      COMMPRESS_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 0, kTag, pair, MPI_STATUS_IGNORE));
      COMMPRESS_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 0, kTag, pair));
    }
    return {};
  };
  // MPI's clock, not the host's: a simulated MPI (SimGrid's SMPI) simulates MPI_Wtime alone,
  // and the host's clock would time how fast the simulator runs, not the simulated link.
  double t0 = MPI_Wtime();
  COMMPRESS_RETURN_IF_ERROR(round_trip());  // warm-up (registration, connection set-up)
  int reps = int(std::clamp(target_seconds / std::max(MPI_Wtime() - t0, 1e-7),
                            double(min_reps), double(max_reps)));
  COMMPRESS_MPI(MPI_Bcast(&reps, 1, MPI_INT, 0, pair));
  double best = INFINITY;
  for (int i = 0; i < reps; ++i) {
    t0 = MPI_Wtime();
    COMMPRESS_RETURN_IF_ERROR(round_trip());
    best = std::min(best, (MPI_Wtime() - t0) / 2);
  }
  return best;
}

}  // namespace commpress::comm::probe
