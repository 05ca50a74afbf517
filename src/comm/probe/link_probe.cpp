#include "comm/probe/link_probe.hpp"

#include <cstddef>
#include <vector>

#include "comm/probe/ping_pong.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
// Enough sizes for a line on each side of a knee between 8 KiB and 256 KiB; the largest is
// big enough for bandwidth to dominate latency on fast links and small enough that the probe
// stays short on slow ones.
constexpr int kSizes[] = {8, 1024, 16384, 262144, 1048576};
constexpr double kRendezvousSplit = 65536;
}  // namespace

Result<model::Link> probe_link(MPI_Comm comm, int a, int b) {
  int rank = 0;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  const bool member = rank == a || rank == b;
  MPI_Comm pair = MPI_COMM_NULL;
  // a first: a is the pair's rank 0, whatever the order of a and b in comm.
  COMMPRESS_MPI(MPI_Comm_split(comm, member ? 0 : MPI_UNDEFINED, rank == a ? 0 : 1, &pair));
  std::vector<double> seconds(std::size(kSizes), 0.0);
  Status st;
  if (pair != MPI_COMM_NULL) {
    int pair_rank = 0;
    MPI_Comm_rank(pair, &pair_rank);
    std::vector<std::byte> buf(size_t(kSizes[std::size(kSizes) - 1]), std::byte{1});
    for (size_t i = 0; st.ok() && i < std::size(kSizes); ++i) {
      auto t = ping_pong(pair, pair_rank, buf, kSizes[i], 2e-3, 2, 50);
      if (t.ok()) seconds[i] = *t;
      else st = t.status();
    }
    MPI_Comm_free(&pair);
  }
  // Every rank learns a's times, and whether the pair failed (a failure fails every rank).
  int failed = st.ok() ? 0 : 1;
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
  if (failed) return st.ok() ? Status{ErrorCode::mpi, "link probe failed on another rank"} : st;
  COMMPRESS_MPI(MPI_Bcast(seconds.data(), int(seconds.size()), MPI_DOUBLE, a, comm));
  std::vector<model::Sample> pts;
  for (size_t i = 0; i < std::size(kSizes); ++i) pts.push_back({double(kSizes[i]), seconds[i]});
  return fit_probed_link(pts);
}

model::Link fit_probed_link(std::span<const model::Sample> points) {
  // Two lines, split between 16 KiB and 256 KiB (where MPI libraries switch to rendezvous):
  // one relative-error line through all five sizes lets the latency-bound small ones set the
  // slope, and a shaped link whose token bucket lets small messages through at line rate then
  // looked nine times faster than it is.
  return model::fit_link(points, kRendezvousSplit);
}

}  // namespace commpress::comm::probe
