#include "comm/probe/ping_pong.hpp"

#include <algorithm>
#include <cmath>

#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
constexpr int kTag = 0x7e0;
constexpr int kStopTag = 0x7e3;  // rank 0's last message of a size: no more round trips
}  // namespace

Result<double> ping_pong(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                         const FloorBudget& budget, bool warm_up, int* round_trips) {
  if (rank != 0) {
    // Rank 1 answers until rank 0 says stop (the warm-up included).
    for (;;) {
      MPI_Status status;
      COMMPRESS_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 0, MPI_ANY_TAG, pair, &status));
      if (status.MPI_TAG == kStopTag) return 0.0;
      COMMPRESS_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 0, kTag, pair));
    }
  }
  auto round_trip = [&]() -> Status {
    COMMPRESS_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 1, kTag, pair));
    COMMPRESS_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 1, kTag, pair, MPI_STATUS_IGNORE));
    return {};
  };
  // MPI's clock, not the host's: a simulated MPI (SimGrid's SMPI) simulates MPI_Wtime alone,
  // and the host's clock would time how fast the simulator runs, not the simulated link.
  Status st = warm_up ? round_trip() : Status{};  // registration, connection set-up
  StableFloor floor(budget);
  const double start = MPI_Wtime();
  while (st.ok() && !floor.done(MPI_Wtime() - start)) {
    const double t0 = MPI_Wtime();
    st = round_trip();
    floor.add((MPI_Wtime() - t0) / 2);
  }
  // Rank 1 waits for the stop even where a round trip failed here.
  COMMPRESS_MPI(MPI_Send(buf.data(), 0, MPI_BYTE, 1, kStopTag, pair));
  if (!st.ok()) return st;
  if (round_trips) *round_trips += floor.runs();
  return floor.fastest();
}

}  // namespace commpress::comm::probe
