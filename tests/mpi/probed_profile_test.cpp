// Zero-configuration Auto (comm/probe/): without a profile the first collective on a
// communicator probes the machine, every rank holds identical numbers, rank 0 caches them and
// a later communicator of the same layout reuses the file; a corrupt file or one of another
// layout or library build is ignored, COMMPRESS_PROBE_CACHE=refresh probes again, a given
// profile wins, on one node MPI's operations are measured against SharedWindow, and Auto on
// the probed numbers never runs what those numbers price slower than MPI's own.
// Runs with XDG_CACHE_HOME set to a directory of its own (tests/mpi/CMakeLists.txt).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "comm/probe/probed_profile.hpp"
#include "comm/probe/profile_cache.hpp"
#include "comm/profile_io.hpp"
#include "comm/select.hpp"
#include "comm/session/agreement.hpp"
#include "comm_test_support.hpp"
#include "support/dev_box_profile.hpp"

namespace {

using namespace commpress::testing::comm;
namespace fs = std::filesystem;
namespace probe = commpress::comm::probe;
namespace model = commpress::model;

// A fresh communicator: its first collective is a first use.
struct FreshComm {
  MPI_Comm comm = MPI_COMM_NULL;
  FreshComm() { MPI_Comm_dup(MPI_COMM_WORLD, &comm); }
  ~FreshComm() { MPI_Comm_free(&comm); }
};

std::vector<float> walk(size_t n, int rank) {
  std::vector<float> v(n);
  double x = rank;
  for (size_t i = 0; i < n; ++i) v[i] = float(x += std::sin(0.37 * double(i) + rank));
  return v;
}

cc::Options lossy_auto() {
  cc::Options o;
  o.bound = ErrorBound::relative(1e-4);
  return o;
}

// One Auto allreduce of n values on comm; its report.
cc::Report auto_allreduce(MPI_Comm comm, size_t n) {
  const auto in = walk(n, world_rank());
  std::vector<float> out(n);
  auto r = cc::allreduce(in.data(), out.data(), n, Dtype::f32, cc::Op::sum, comm, lossy_auto());
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : cc::Report{};
}

// The profile in force, the same on every rank (its JSON's fingerprint, compared).
bool profile_agreed() {
  int64_t f = commpress::comm::detail::fingerprint(
      commpress::comm::profile_to_json(cc::detail::machine_profile()));
  int64_t lo = f, hi = f;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

// Rank 0's cached files (the layout of this run has one).
std::vector<fs::path> cached_files() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(probe::cache_directory(), ec))
    if (e.path().extension() == ".json") out.push_back(e.path());
  return out;
}

// Rank 0's one cached file, as text ("" on the other ranks).
std::string cached_text() {
  if (world_rank() != 0) return "";
  std::ifstream in(cached_files().at(0));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Rank 0 rewrites its one cached file; every rank waits for it.
void rewrite_cache(const std::string& text) {
  if (world_rank() == 0) {
    auto files = cached_files();
    ASSERT_EQ(files.size(), 1u);
    std::ofstream(files[0], std::ios::trunc) << text;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

class ProbedProfile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(std::getenv("COMMPRESS_PROFILE"), nullptr) << "this test probes: run it without";
    ASSERT_FALSE(probe::cache_directory().empty());
    if (world_rank() == 0) fs::remove_all(probe::cache_directory());
    MPI_Barrier(MPI_COMM_WORLD);
  }
};

// The steps depend on each other (the cache the first writes), so they form one test.
TEST_F(ProbedProfile, ProbesOnceCachesAndReuses) {
  const probe::ProbeCounts start = probe::probe_counts();
  {
    FreshComm a;
    auto r = auto_allreduce(a.comm, 1 << 16);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 1);
    EXPECT_EQ(probe::probe_counts().reused, start.reused);
    const model::MachineProfile& m = cc::detail::machine_profile();
    EXPECT_EQ(m.origin.rfind("probed", 0), 0u) << m.origin;
    const model::CodecRates* szp = m.rates("szp", Dtype::f32);
    ASSERT_NE(szp, nullptr);
    EXPECT_GT(szp->compress, 0);
    EXPECT_GT(szp->decompress, 0);
    EXPECT_GT(szp->combine, 0);
    EXPECT_GT(m.gamma, 0);
    if (world_size() > 1) {
      EXPECT_GT(m.network.rendezvous.beta, 0);
      EXPECT_TRUE(m.intra_node.has_value());  // ctest runs every rank on this node
      // One node: MPI's operations against SharedWindow and its reduce_scatter against
      // PlainRing, at this rank count, every size.
      for (const model::MpiAgainstPlain* w : {&m.allreduce_mpi, &m.allgather_mpi,
                                              &m.bcast_window_mpi, &m.reduce_scatter_mpi}) {
        EXPECT_EQ(w->ranks, world_size());
        EXPECT_GE(w->points.size(), 2u);
        for (const auto& pt : w->points) EXPECT_GT(pt.slowdown, 0);
      }
    }
    EXPECT_TRUE(profile_agreed());
    // A second call on the same communicator probes nothing more.
    auto_allreduce(a.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 1);
    if (world_rank() == 0) {
      EXPECT_EQ(cached_files().size(), 1u);
    }
  }
  const model::MachineProfile probed = cc::detail::machine_profile();
  {
    FreshComm b;  // same layout: rank 0 reads the file
    auto_allreduce(b.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 1);
    EXPECT_EQ(probe::probe_counts().reused, start.reused + 1);
    EXPECT_EQ(commpress::comm::profile_to_json(cc::detail::machine_profile()),
              commpress::comm::profile_to_json(probed));
    EXPECT_TRUE(profile_agreed());
  }
  rewrite_cache("{\"format\": \"commpress-probed-profile\", \"version\": 1, \"pro");  // torn
  {
    FreshComm c;
    auto_allreduce(c.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 2);  // ignored, probed again
    EXPECT_TRUE(profile_agreed());
  }
  {
    FreshComm d;  // the probe rewrote a whole file
    auto_allreduce(d.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 2);
    EXPECT_EQ(probe::probe_counts().reused, start.reused + 2);
  }
  // A file of another layout (another host set) under this layout's name: not taken.
  std::string text = cached_text();
  if (world_rank() == 0) {
    const auto at = text.find("\"key\": \"");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + 8, "elsewhere:4,");
  }
  rewrite_cache(text);
  {
    FreshComm e;
    auto_allreduce(e.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 3);
    EXPECT_TRUE(profile_agreed());
  }
  // COMMPRESS_PROBE_CACHE=refresh (rank 0's decides): probes although the file is good.
  setenv("COMMPRESS_PROBE_CACHE", "refresh", 1);
  {
    FreshComm f;
    auto_allreduce(f.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 4);
  }
  unsetenv("COMMPRESS_PROBE_CACHE");
  // A file another build of this version wrote (the key names the library's build id): not
  // taken, since what that build probed, and how, may differ.
  const std::string build = probe::library_build_id();
  ASSERT_FALSE(build.empty()) << "the library has no GNU build id";
  text = cached_text();
  if (world_rank() == 0) {
    const auto at = text.find(" build " + build);
    ASSERT_NE(at, std::string::npos) << "the cache key lacks the build id";
    text.replace(at + 7, build.size(), std::string(build.size(), '0'));
  }
  rewrite_cache(text);
  {
    FreshComm g;
    auto_allreduce(g.comm, 1 << 10);
    EXPECT_EQ(probe::probe_counts().probed, start.probed + 5);
  }
}

// A profile given in the process wins: no probe, and it is the one in force.
TEST_F(ProbedProfile, GivenProfileWins) {
  const model::MachineProfile given = commpress::testing::dev_box_profile();
  cc::detail::set_machine_profile(given);
  const probe::ProbeCounts start = probe::probe_counts();
  {
    FreshComm g;
    auto_allreduce(g.comm, 1 << 12);
    EXPECT_EQ(probe::probe_counts().probed, start.probed);
    EXPECT_EQ(probe::probe_counts().reused, start.reused);
    EXPECT_EQ(cc::detail::machine_profile().origin, given.origin);
  }
  cc::detail::set_machine_profile(std::nullopt);
}

// On the probed numbers, Auto never runs what they price slower than MPI's own allreduce
// (which under Auto runs after the argument agreement, as every call through commpress: one
// allreduce of 38 int64).
TEST_F(ProbedProfile, AutoNeverSlowerThanMpiByItsOwnNumbers) {
  FreshComm h;
  cc::Options mpi = lossy_auto();
  mpi.algorithm = cc::Algorithm::Mpi;
  const cc::detail::SelectCall agreement{model::Operation::allreduce, 38, Dtype::i64,
                                         cc::Op::min};
  cc::Options lossless_mpi;
  lossless_mpi.algorithm = cc::Algorithm::Mpi;
  for (size_t n : {size_t{1} << 8, size_t{1} << 14, size_t{1} << 18, size_t{1} << 21}) {
    const cc::Report r = auto_allreduce(h.comm, n);  // the first one probes
    const double agreement_time =
        cc::detail::select_forced(agreement, lossless_mpi, world_size()).predicted_seconds;
    if (world_size() > 1) ASSERT_GT(agreement_time, 0);  // one rank agrees with no one
    const auto in = walk(n, world_rank());
    cc::detail::SelectCall call{model::Operation::allreduce, n, Dtype::f32, cc::Op::sum,
                                in.data(), n};
    const double mpi_time =
        cc::detail::select_forced(call, mpi, world_size()).predicted_seconds + agreement_time;
    if (r.algorithm != cc::Algorithm::Mpi && mpi_time > 0) {
      EXPECT_LE(r.predicted_seconds, mpi_time * (1 + 1e-9))
          << n << " values: " << cc::algorithm_name(r.algorithm);
    }
  }
  EXPECT_EQ(cc::detail::machine_profile().origin.rfind("probed", 0), 0u);
}

// Run with COMMPRESS_PROFILE set (the ctest entry probed_profile_env): the file wins.
TEST(ProbedProfileEnv, EnvironmentProfileWins) {
  if (!std::getenv("COMMPRESS_PROFILE")) GTEST_SKIP() << "needs COMMPRESS_PROFILE";
  FreshComm e;
  auto_allreduce(e.comm, 1 << 12);
  EXPECT_EQ(probe::probe_counts().probed, 0);
  EXPECT_EQ(probe::probe_counts().reused, 0);
  EXPECT_EQ(cc::detail::machine_profile().origin, commpress::testing::dev_box_profile().origin);
}

}  // namespace
