#include "comm/probe/link_probe.hpp"

#include <cstddef>
#include <vector>

#include "comm/probe/overlap_limit.hpp"
#include "comm/probe/ping_pong.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
// Enough sizes for a line on each side of a knee between 8 KiB and 256 KiB; the largest is
// big enough for bandwidth to dominate latency on fast links and small enough that the probe
// stays short on slow ones.
constexpr int kSizes[] = {8, 1024, 16384, 262144, 1048576};
constexpr double kRendezvousSplit = 65536;
// The overlap is judged up to 256 KiB (16 KiB and 256 KiB of the sizes above: the pipelined
// rings' chunks on the wire are rarely larger), fastest of 3 tries: at 1 MiB each try would
// compute for twice a slow link's transfer time.
constexpr double kOverlapMaxBytes = 262144;
constexpr int kOverlapReps = 3;
// Round trips per size, at least: where other jobs load the cores, most round trips wait for
// a core at one end or the other (milliseconds, where the link takes microseconds), and the
// time budget per size then allows only a few; the fastest of a few such was the line's
// latency. So the latency-bound sizes get many, as `commpress profile`'s longer budget per
// size gives them; the larger ones, whose own transfer dwarfs a wait for a core, few.
constexpr int kFewBytes = 16384;
constexpr int kFewBytesReps = 24, kManyBytesReps = 3;
}  // namespace

Result<model::Link> probe_link(MPI_Comm comm, int a, int b) {
  int rank = 0;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  const bool member = rank == a || rank == b;
  MPI_Comm pair = MPI_COMM_NULL;
  // a first: a is the pair's rank 0, whatever the order of a and b in comm.
  COMMPRESS_MPI(MPI_Comm_split(comm, member ? 0 : MPI_UNDEFINED, rank == a ? 0 : 1, &pair));
  // a's times and the overlap limit it found, as they travel in one broadcast.
  std::vector<double> found(std::size(kSizes) + 1, 0.0);
  std::vector<model::Sample> pts;
  std::vector<std::byte> buf;
  int pair_rank = 0;
  Status st;
  auto free_pair = [&] {
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
  };
  // Every rank learns whether the pair failed (a failure fails every rank).
  auto agree_failed = [&]() -> Status {
    int failed = st.ok() ? 0 : 1;
    COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (!failed) return {};
    free_pair();
    return st.ok() ? Status{ErrorCode::mpi, "link probe failed on another rank"} : st;
  };
  if (pair != MPI_COMM_NULL) {
    MPI_Comm_rank(pair, &pair_rank);
    buf.assign(size_t(kSizes[std::size(kSizes) - 1]), std::byte{1});
    for (size_t i = 0; st.ok() && i < std::size(kSizes); ++i) {
      auto t = ping_pong(pair, pair_rank, buf, kSizes[i], 2e-3, kSizes[i] <= kFewBytes ? kFewBytesReps : kManyBytesReps, 50);
      if (t.ok()) found[i] = *t;
      else st = t.status();
    }
    // Both ends judge the overlap by a's times, so they judge the same sizes.
    if (st.ok() && MPI_Bcast(found.data(), int(std::size(kSizes)), MPI_DOUBLE, 0, pair) != MPI_SUCCESS)
      st = {ErrorCode::mpi, "link probe: MPI_Bcast failed"};
    for (size_t i = 0; i < std::size(kSizes); ++i) pts.push_back({double(kSizes[i]), found[i]});
  }
  COMMPRESS_RETURN_IF_ERROR(agree_failed());
  // Every rank computes while the pair judges the overlap, as every rank does during a
  // collective (idle ranks would leave their cores to the kernel's packet work, and the link
  // would look as if it moved more behind computation than it does then).
  COMMPRESS_MPI(MPI_Barrier(comm));
  if (pair != MPI_COMM_NULL) {
    auto limit = overlap_limit(pair, pair_rank, buf, pts, kOverlapReps, kOverlapMaxBytes);
    if (limit.ok()) found.back() = *limit;
    else st = limit.status();
  }
  COMMPRESS_RETURN_IF_ERROR(wait_for_all(comm, member ? Pace::test : Pace::compute));
  COMMPRESS_RETURN_IF_ERROR(agree_failed());
  free_pair();
  COMMPRESS_MPI(MPI_Bcast(found.data(), int(found.size()), MPI_DOUBLE, a, comm));
  pts.clear();
  for (size_t i = 0; i < std::size(kSizes); ++i) pts.push_back({double(kSizes[i]), found[i]});
  model::Link link = fit_probed_link(pts);
  link.overlap_bytes = found.back();
  return link;
}

model::Link fit_probed_link(std::span<const model::Sample> points) {
  // Two lines, split between 16 KiB and 256 KiB (where MPI libraries switch to rendezvous):
  // one relative-error line through all five sizes lets the latency-bound small ones set the
  // slope, and a shaped link whose token bucket lets small messages through at line rate then
  // looked nine times faster than it is.
  return model::fit_link(points, kRendezvousSplit);
}

}  // namespace commpress::comm::probe
