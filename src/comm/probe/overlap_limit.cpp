#include "comm/probe/overlap_limit.hpp"

#include <algorithm>
#include <cmath>

#include "comm/probe/timing.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {

constexpr int kTag = 0x7e2;

// The time the slower end of an m-byte message from rank 0 to rank 1 spends inside MPI (the
// nonblocking post and the wait) when both compute (spin, no MPI calls) for `busy` seconds in
// between. A message the link moves on its own (eager, into the kernel's or the peer's
// buffers) costs only the calls; one that moves only inside MPI calls (rendezvous, or a copy
// the receiving call makes itself) costs its whole transfer there.
Result<double> time_in_mpi(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                           double busy) {
  MPI_Request req = MPI_REQUEST_NULL;
  COMMPRESS_MPI(MPI_Barrier(pair));
  auto t0 = Clock::now();
  if (rank == 0)
    COMMPRESS_MPI(MPI_Isend(buf.data(), m, MPI_BYTE, 1, kTag, pair, &req));
  else
    COMMPRESS_MPI(MPI_Irecv(buf.data(), m, MPI_BYTE, 0, kTag, pair, &req));
  double in_mpi = seconds_since(t0);
  spin(busy);
  t0 = Clock::now();
  COMMPRESS_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  in_mpi += seconds_since(t0);
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &in_mpi, 1, MPI_DOUBLE, MPI_MAX, pair));
  return in_mpi;
}

}  // namespace

Result<double> overlap_limit(MPI_Comm pair, int rank, std::vector<std::byte>& buf,
                             const std::vector<model::Sample>& one_way, int reps,
                             double max_bytes) {
  auto in_mpi = [&](const model::Sample& s) -> Result<double> {
    double best = INFINITY;
    for (int rep = 0; rep < reps; ++rep) {
      auto t = time_in_mpi(pair, rank, buf, int(s.bytes), 2 * s.seconds + 20e-6);
      if (!t.ok()) return t.status();
      best = std::min(best, *t);
    }
    return best;
  };
  const auto base = std::find_if(one_way.begin(), one_way.end(),
                                 [](const model::Sample& s) { return s.bytes >= 1024; });
  if (base == one_way.end()) return 0.0;
  auto base_mpi = in_mpi(*base);
  if (!base_mpi.ok()) return base_mpi.status();
  double limit = 0;
  for (auto s = base + 1; s != one_way.end() && s->bytes <= max_bytes; ++s) {
    if (s->seconds < 4 * base->seconds) continue;
    auto t = in_mpi(*s);
    if (!t.ok()) return t.status();
    if (*t - *base_mpi > 0.5 * (s->seconds - base->seconds)) break;
    limit = s->bytes;
  }
  return limit;
}

Status wait_for_all(MPI_Comm comm, Pace pace) {
  MPI_Request all = MPI_REQUEST_NULL;
  COMMPRESS_MPI(MPI_Ibarrier(comm, &all));
  for (int done = 0; !done;) {
    if (pace == Pace::compute) spin(100e-6);
    COMMPRESS_MPI(MPI_Test(&all, &done, MPI_STATUS_IGNORE));
  }
  return {};
}

}  // namespace commpress::comm::probe
