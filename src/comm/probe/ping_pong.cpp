#include "comm/probe/ping_pong.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
using Clock = std::chrono::steady_clock;
constexpr int kTag = 0x7e0;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
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
  auto t0 = Clock::now();
  COMMPRESS_RETURN_IF_ERROR(round_trip());  // warm-up (registration, connection set-up)
  int reps = int(std::clamp(target_seconds / std::max(seconds_since(t0), 1e-7),
                            double(min_reps), double(max_reps)));
  COMMPRESS_MPI(MPI_Bcast(&reps, 1, MPI_INT, 0, pair));
  double best = INFINITY;
  for (int i = 0; i < reps; ++i) {
    t0 = Clock::now();
    COMMPRESS_RETURN_IF_ERROR(round_trip());
    best = std::min(best, seconds_since(t0) / 2);
  }
  return best;
}

}  // namespace commpress::comm::probe
