// The zero-configuration probe's codec rates against `commpress profile`'s way of measuring
// them, on the same machine in the same run, for every operation the reductions' models
// weigh against each other (compress, decompress, combine, combine_raw):
// - each rate within a factor of the profile's long wall-clock runs on every rank at once
//   (the probe's short runs timed on the core, times the share of a core every rank coding
//   at once keeps, must stand for them);
// - their proportions (each rate over compress's) close to those of long runs timed on the
//   core, which a loaded machine's preemptions do not move.
// A probe that times a combine once, or by the wall clock in runs that fit a time slice,
// misses both by an order of magnitude on a loaded machine.
// No time is asserted: only how two measurements of one rate compare.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "comm/probe/codec_rates.hpp"
#include "comm/probe/quick_probe.hpp"
#include "comm/probe/timing.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm_test_support.hpp"

namespace {

using namespace commpress::testing::comm;
namespace probe = commpress::comm::probe;
namespace model = commpress::model;

// How far a probed rate may part from the profile's: the load of a shared machine moves
// between the two measurements, and either side's wall-clock rates with it.
constexpr double kFactor = 8;
// How far the proportions may part: both sides time them on the core, but a loaded machine
// still moves on-core times (caches and the core's sibling shared with other jobs); the
// mistakes this test is for part them by an order of magnitude.
constexpr double kMixFactor = 4;

// Rates of szp on f32 random walks (1 Mi values, the profile's 4 Mi being slower to time),
// the fastest of 5 runs on every rank at once, by `clock`: the slowest rank's by the wall
// clock (as src/profile/measure_profile.cpp takes them), the fastest rank's on the core.
std::vector<double> szp_f32_rates(probe::Clocking clock) {
  // The OpenMP team a collective's codec work gets, as the probe measures with: OpenMP's own
  // default (a thread per core in every rank) spins in its barriers where ranks share cores.
  commpress::comm::detail::CodecThreads share;
  constexpr size_t n = size_t{1} << 20;
  const auto a = probe::random_walk<float>(n, 11), b = probe::random_walk<float>(n, 12);
  auto row = probe::measure_codec<float>(*codec::find_codec("szp"), 1e-4, a.data(), b.data(),
                                         n, 5, clock);
  EXPECT_TRUE(row.ok()) << row.status().to_string();
  if (!row.ok()) return {0, 0, 0, 0};
  std::vector<double> v = {row->compress, row->decompress, row->combine, row->combine_raw};
  MPI_Allreduce(MPI_IN_PLACE, v.data(), 4, MPI_DOUBLE,
                clock == probe::Clocking::wall ? MPI_MIN : MPI_MAX, MPI_COMM_WORLD);
  return v;
}

// One probe and the reference measurements beside it; true where every rate and proportion
// is within its factor. Every rank gets the same answer: the probe's profile is agreed and the
// references are reduced over the ranks.
bool probe_matches_profile(int attempt) {
  // Every rank a node of its own: the probe measures the links and the codecs, not the
  // one-node comparisons with SharedWindow (seconds, and no codec rates).
  std::vector<int> nodes(static_cast<size_t>(world_size()));
  for (size_t r = 0; r < nodes.size(); ++r) nodes[r] = int(r);
  probe::ProbeCall call;  // no data: the probe's random walk, szp only, REL 1e-4
  auto probed = probe::quick_probe(MPI_COMM_WORLD, nodes, call);
  EXPECT_TRUE(probed.ok()) << probed.status().to_string();
  if (!probed.ok()) return true;  // a failed probe is a failure, not a reason to try again
  const model::CodecRates* p = probed->profile.rates("szp", Dtype::f32);
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return true;
  const std::vector<double> got = {p->compress, p->decompress, p->combine, p->combine_raw};
  const std::vector<double> wall = szp_f32_rates(probe::Clocking::wall);
  const std::vector<double> core = szp_f32_rates(probe::Clocking::on_core);
  const char* names[] = {"compress", "decompress", "combine", "combine_raw"};
  if (world_rank() == 0) std::printf("attempt %d, probe: %s\n", attempt, probed->phases.c_str());
  bool ok = true;
  for (size_t i = 0; i < 4; ++i) {
    if (world_rank() == 0)
      std::printf("szp f32 %s: probed %.4g GB/s, profiled %.4g GB/s (on the core %.4g)\n",
                  names[i], got[i] / 1e9, wall[i] / 1e9, core[i] / 1e9);
    EXPECT_GT(got[i], 0) << names[i];
    EXPECT_GT(wall[i], 0) << names[i];
    if (!(got[i] > 0 && wall[i] > 0)) return true;
    ok = ok && got[i] / wall[i] > 1 / kFactor && got[i] / wall[i] < kFactor;
    if (i == 0) continue;
    const double mix = (got[i] / got[0]) / (core[i] / core[0]);
    ok = ok && mix > 1 / kMixFactor && mix < kMixFactor;
  }
  return ok;
}

// A wrong way of measuring parts the two systematically, on every attempt; a core taken by
// another job during one attempt's few milliseconds, on either side, parts them once (seen
// both ways on this project's 2-core machine: the probe's rates 10x the reference's, the
// reference's on-core compress at a fifth of its usual rate). So: three attempts, one must hold.
TEST(ProbeRates, WithinAFactorOfTheProfilesMeasurement) {
  constexpr int kAttempts = 3;
  bool ok = false;
  for (int attempt = 1; attempt <= kAttempts && !ok; ++attempt) ok = probe_matches_profile(attempt);
  EXPECT_TRUE(ok) << "probed szp rates outside a factor " << kFactor << " of the reference "
                  << "(proportions " << kMixFactor << ") on each of " << kAttempts << " attempts";
}

}  // namespace
