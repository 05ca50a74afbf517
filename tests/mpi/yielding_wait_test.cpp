// The progress thread's waits (comm/session/yielding_wait.hpp, COMMPRESS_PROGRESS=thread):
// while a peer is late, they leave the core to the caller's computation instead of polling,
// and still deliver what MPI's own waits deliver; an unknown COMMPRESS_PROGRESS fails every
// rank's operation with a message naming it. The checks compare the CPU time spent in a wait
// whose peer sleeps with the wait's wall time: a polling wait spends all of it where a core is
// free (on a machine loaded past its cores, less: there the check cannot tell them apart).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

#include "comm/session/environment.hpp"
#include "comm/session/yielding_wait.hpp"
#include "commpress/nonblocking.hpp"
#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
namespace detail = commpress::comm::detail;

namespace {

constexpr auto kLate = std::chrono::milliseconds(300);  // how late the peer is

double cpu_seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// A wait that spends more than this share of its wall time on the CPU polls: MPI's own
// spends all of it where the core is free. Half leaves room for the polls' own cost where a
// sanitizer or a loaded machine makes each one dearer, and still catches a spinning wait.
constexpr double kMostBusy = 0.5;

// Rank 0 receives from rank 1, which sends kLate after both start, in a yielding wait.
TEST(YieldingWait, LeavesTheCoreWhileAPeerIsLate) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<double> data(1000);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 1) {
    for (size_t i = 0; i < data.size(); ++i) data[i] = double(i) * 0.5;
    std::this_thread::sleep_for(kLate);
    MPI_Send(data.data(), int(data.size()), MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
  }
  if (world_rank() != 0) return;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Irecv(data.data(), int(data.size()), MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, &req);
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  MPI_Status st;
  int rc = MPI_SUCCESS;
  {
    detail::YieldingWaits guard;
    rc = detail::waitall_yielding(1, &req, &st);
  }
  const double cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  ASSERT_EQ(rc, MPI_SUCCESS);
  EXPECT_EQ(req, MPI_REQUEST_NULL);
  int count = 0;
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  ASSERT_EQ(count, int(data.size()));
  for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], double(i) * 0.5) << i;
  EXPECT_LT(cpu, kMostBusy * wall) << "CPU seconds " << cpu << " in a wait of " << wall << " s";
  EXPECT_FALSE(detail::waits_yield()) << "the guard's end restores MPI's waits";
}

// Progress threads that wait differently (thread on even ranks, spin on odd ones) still
// call matching collectives.
TEST(YieldingWait, AllreduceGivesMpisResult) {
  std::vector<long> in(64), mine(64), ref(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = long(i) * (world_rank() + 1);
  MPI_Allreduce(in.data(), ref.data(), int(in.size()), MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const bool sleep = world_rank() % 2 == 0;
  detail::YieldingWaits guard(sleep);
  ASSERT_EQ(detail::waits_yield(), sleep);
  ASSERT_EQ(detail::allreduce_yielding(in.data(), mine.data(), int(in.size()), MPI_LONG, MPI_SUM,
                                       MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(mine, ref);
}

// The whole chain: the default mode's progress thread waits for a late peer (in the
// operation's agreement) without keeping a core busy; the caller sleeps in wait().
TEST(YieldingWait, ProgressThreadIdlesWhileAPeerIsLate) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  if (!cc::progress_thread_available()) GTEST_SKIP() << "no MPI_THREAD_MULTIPLE";
  ASSERT_EQ(detail::environment().progress, detail::ProgressMode::thread);
  std::vector<double> in(1000, double(world_rank() + 1)), out(1000);
  const cc::Options opts{"zstd-1", ErrorBound::lossless(), cc::Algorithm::DocRing};
  // Warm-up: the queue's thread and duplicate exist before the measured wait.
  ASSERT_TRUE(cc::iallreduce(in.data(), out.data(), in.size(), Dtype::f64, cc::Op::sum,
                             MPI_COMM_WORLD, opts).wait().ok());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 1) std::this_thread::sleep_for(kLate);
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  auto r = cc::iallreduce(in.data(), out.data(), in.size(), Dtype::f64, cc::Op::sum,
                          MPI_COMM_WORLD, opts).wait();
  const double cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const double p = world_size();
  for (double v : out) ASSERT_EQ(v, p * (p + 1) / 2);
  if (world_rank() == 0)
    EXPECT_LT(cpu, kMostBusy * wall) << "CPU seconds " << cpu << " in a wait of " << wall << " s";
}

TEST(YieldingWait, AnUnknownProgressModeFailsEveryRank) {
  setenv("COMMPRESS_PROGRESS", "sometimes", 1);
  detail::reread_environment_for_testing();
  std::vector<double> in(16, 1.0), out(16);
  auto r = cc::iallreduce(in.data(), out.data(), in.size(), Dtype::f64, cc::Op::sum,
                          MPI_COMM_WORLD, {"zstd-1", ErrorBound::lossless(), cc::Algorithm::DocRing})
               .wait();
  unsetenv("COMMPRESS_PROGRESS");
  detail::reread_environment_for_testing();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), commpress::ErrorCode::invalid_argument);
  EXPECT_NE(r.status().message().find("COMMPRESS_PROGRESS=sometimes"), std::string::npos)
      << r.status().message();
}

}  // namespace
