#include "comm/probe/link_probe.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "comm/probe/floor_line.hpp"
#include "comm/probe/overlap_limit.hpp"
#include "comm/probe/ping_pong.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {
// Three sizes on each side of the split at 64 KiB (MPI libraries switch to rendezvous between
// 8 KiB and 256 KiB), so that each side's line holds with one size's round trips having
// waited for a core (floor_line.hpp); the largest is big enough for bandwidth to dominate
// latency on fast links and small enough that the probe stays short on slow ones.
constexpr int kSizes[] = {8, 1024, 16384, 65536, 262144, 1048576};
constexpr double kRendezvousSplit = 65536;
// The overlap is judged up to 256 KiB (the pipelined rings' chunks on the wire are rarely
// larger), fastest of 3 tries: at 1 MiB each try would compute for twice a slow link's
// transfer time.
constexpr double kOverlapMaxBytes = 262144;
constexpr int kOverlapReps = 3;
// Round trips per size (stable_floor.hpp: until the fastest two agree). The latency-bound
// sizes get many: where other jobs load the cores, most round trips wait for a core at one
// end or the other (milliseconds, where the link takes microseconds), so the floor needs
// many tries to show, and each costs little where it does; and they need more than two to
// agree, since two waits can agree by chance. The larger sizes are bounded by the time: a
// 1 MiB round trip takes milliseconds on a slow link and a tenth of one on shared memory,
// where a loaded machine's waits swamp all of them alike unless some tries miss the waits.
constexpr int kFewBytes = 16384;
constexpr FloorBudget kFewBytesTrips{12, 64, 0.03, 0.1};
constexpr FloorBudget kManyBytesTrips{2, 32, 0.05, 0.05};
constexpr int max_round_trips() {
  int n = 0;
  for (int m : kSizes) n += (m <= kFewBytes ? kFewBytesTrips : kManyBytesTrips).max_runs;
  return n;
}
}  // namespace

const int kMaxRoundTripsPerLink = max_round_trips();

Result<model::Link> probe_link(MPI_Comm comm, int a, int b, int* round_trips) {
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
      auto t = ping_pong(pair, pair_rank, buf, kSizes[i],
                         kSizes[i] <= kFewBytes ? kFewBytesTrips : kManyBytesTrips,
                         /*warm_up=*/i == 0, round_trips);
      if (t.ok()) found[i] = *t;
      else st = t.status();
    }
    // Both ends judge the overlap by a's times, so they judge the same sizes.
    if (st.ok() && MPI_Bcast(found.data(), int(std::size(kSizes)), MPI_DOUBLE, 0, pair) != MPI_SUCCESS)
      st = {ErrorCode::mpi, "link probe: MPI_Bcast failed"};
    // The overlap is judged by the fitted lines' times, not the points': a size whose round
    // trips all waited for a core lies above its line, and its wait would count as transfer
    // time that computation can hide.
    std::vector<model::Sample> measured;
    for (size_t i = 0; i < std::size(kSizes); ++i) measured.push_back({double(kSizes[i]), found[i]});
    const model::Link line = fit_probed_link(measured);
    for (int m : kSizes) pts.push_back({double(m), line.time(double(m))});
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
  // Two lines, split at 64 KiB (where MPI libraries switch to rendezvous): one relative-error
  // line through all sizes let the latency-bound small ones set the slope, and a shaped link
  // whose token bucket lets small messages through at line rate then looked nine times faster
  // than it is. Each a line under its points (floor_line.hpp), not a least-squares line: a
  // point whose round trips all waited for a core lies above the link's line, and through two
  // large sizes a waited 256 KiB one halved the slope and put milliseconds in the intercept.
  // The small sizes' line sets the latency, the large sizes' (sustained_line) the cost per
  // byte.
  std::vector<model::Sample> lo, hi;
  for (const model::Sample& s : points) (s.bytes < kRendezvousSplit ? lo : hi).push_back(s);
  model::Link link;
  link.eager = floor_line(lo.empty() ? hi : lo);
  link.rendezvous = hi.empty() ? link.eager : sustained_line(hi);
  link.switch_bytes = kRendezvousSplit;
  // A rendezvous message first shakes hands: at least an eager one's latency (as fit_link).
  link.rendezvous.alpha = std::max(link.rendezvous.alpha, link.eager.alpha);
  return link;
}

}  // namespace commpress::comm::probe
