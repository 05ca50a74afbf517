// commpress::comm's nonblocking and persistent collectives (commpress/nonblocking.hpp):
// results equal the blocking verbs' bit for bit, many requests in flight on one communicator
// complete in any order, a freed communicator's operations still complete, operations move
// while the caller makes no MPI call at all (with a progress thread), and mismatched
// arguments fail on every rank. Run with and without MPI_THREAD_MULTIPLE, and in each
// COMMPRESS_PROGRESS mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "commpress/nonblocking.hpp"
#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;

namespace {

// Integer-valued doubles: every summation order gives the same exact sum, so MPI's own
// allreduce is the reference bit for bit.
std::vector<double> integers(size_t n, int salt) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = double((i * 7 + size_t(world_rank()) * 13 + size_t(salt)) % 1000);
  return v;
}

// A progress thread where MPI allows one, unless COMMPRESS_PROGRESS=inline asks for none.
TEST(Nonblocking, ProgressModeIsTheMpiThreadLevel) {
  int level = 0;
  MPI_Query_thread(&level);
  const char* mode = std::getenv("COMMPRESS_PROGRESS");
  const bool inline_asked = mode && std::string(mode) == "inline";
  EXPECT_EQ(cc::progress_thread_available(), level == MPI_THREAD_MULTIPLE && !inline_asked);
}

// Each verb started, then the same call blocking with what the nonblocking one ran.
TEST(Nonblocking, ResultsEqualTheBlockingVerbs) {
  const int p = world_size(), me = world_rank();
  const size_t n = 20000;
  for (const Config& cfg : {Config{"zstd-1", ErrorBound::lossless()},
                            Config{"szp", ErrorBound::relative(1e-4)}}) {
    Bytes in = make_bytes(Dtype::f64, n * size_t(p), 40 + me);
    Bytes a(in.size()), b(in.size());
    cc::Options opts{cfg.codec, cfg.bound};
    auto same_as_blocking = [&](cc::CollectiveRequest req, auto blocking, const char* what) {
      auto r = req.wait();
      ASSERT_TRUE(r.ok()) << what << " " << describe(cfg) << ": " << r.status().to_string();
      cc::Options forced = opts;
      forced.algorithm = r->algorithm;
      forced.chunk_bytes = r->chunk_bytes;
      auto s = blocking(forced);
      ASSERT_TRUE(s.ok()) << what << ": " << s.status().to_string();
      EXPECT_TRUE(a == b) << what << " " << describe(cfg) << ": differs from the blocking verb";
      EXPECT_EQ(r->guaranteed_abs_bound, s->guaranteed_abs_bound) << what;
    };
    same_as_blocking(cc::iallreduce(in.data(), a.data(), n, Dtype::f64, cc::Op::sum, MPI_COMM_WORLD, opts),
                     [&](const cc::Options& o) {
                       return cc::allreduce(in.data(), b.data(), n, Dtype::f64, cc::Op::sum, MPI_COMM_WORLD, o);
                     },
                     "iallreduce");
    same_as_blocking(cc::ireduce_scatter_block(in.data(), a.data(), n, Dtype::f64, cc::Op::max,
                                               MPI_COMM_WORLD, opts),
                     [&](const cc::Options& o) {
                       return cc::reduce_scatter_block(in.data(), b.data(), n, Dtype::f64, cc::Op::max,
                                                       MPI_COMM_WORLD, o);
                     },
                     "ireduce_scatter_block");
    a = in, b = in;
    same_as_blocking(cc::ibcast(a.data(), n, Dtype::f64, p - 1, MPI_COMM_WORLD, opts),
                     [&](const cc::Options& o) {
                       return cc::bcast(b.data(), n, Dtype::f64, p - 1, MPI_COMM_WORLD, o);
                     },
                     "ibcast");
    same_as_blocking(cc::iallgather(in.data(), a.data(), n, Dtype::f64, MPI_COMM_WORLD, opts),
                     [&](const cc::Options& o) {
                       return cc::allgather(in.data(), b.data(), n, Dtype::f64, MPI_COMM_WORLD, o);
                     },
                     "iallgather");
    same_as_blocking(cc::ialltoall(in.data(), a.data(), n, Dtype::f64, MPI_COMM_WORLD, opts),
                     [&](const cc::Options& o) {
                       return cc::alltoall(in.data(), b.data(), n, Dtype::f64, MPI_COMM_WORLD, o);
                     },
                     "ialltoall");
    // Unequal blocks: rank s sends 50 + 100 * ((s + 2d) % 3) elements to rank d.
    auto block = [](int s, int d) { return size_t(50 + 100 * ((s + 2 * d) % 3)); };
    std::vector<size_t> sc, sd, rc, rd;
    for (int r = 0, sent = 0, got = 0; r < p; ++r) {
      sc.push_back(block(me, r)), sd.push_back(size_t(sent)), sent += int(sc.back());
      rc.push_back(block(r, me)), rd.push_back(size_t(got)), got += int(rc.back());
    }
    std::fill(a.begin(), a.end(), std::byte{0}), std::fill(b.begin(), b.end(), std::byte{0});
    auto req = cc::ialltoallv(in.data(), sc, sd, a.data(), rc, rd, Dtype::f64, MPI_COMM_WORLD, opts);
    sc.assign(sc.size(), 0);  // the request copied the layout
    same_as_blocking(std::move(req),
                     [&](const cc::Options& o) {
                       for (int r = 0; r < p; ++r) sc[size_t(r)] = block(me, r);
                       return cc::alltoallv(in.data(), sc, sd, b.data(), rc, rd, Dtype::f64,
                                            MPI_COMM_WORLD, o);
                     },
                     "ialltoallv");
  }
}

// Twelve allreduces in flight on one communicator (and two on a duplicate), completed in an
// order that differs between ranks: each equals MPI's own.
TEST(Nonblocking, ManyInFlightCompleteInAnyOrder) {
  const int me = world_rank();
  const size_t n = 30000;
  constexpr int kRequests = 12;
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  std::vector<std::vector<double>> in(kRequests), out(kRequests, std::vector<double>(n)),
      ref(kRequests, std::vector<double>(n));
  std::vector<cc::CollectiveRequest> reqs;
  cc::Options opts{"zstd-1", ErrorBound::lossless(), cc::Algorithm::Auto};
  for (int i = 0; i < kRequests; ++i) {
    in[i] = integers(n, i);
    MPI_Allreduce(in[i].data(), ref[i].data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    // Every third one on the duplicate, which no rank waits for in posting order either.
    MPI_Comm c = i % 3 == 2 ? other : MPI_COMM_WORLD;
    reqs.push_back(cc::iallreduce(in[i].data(), out[i].data(), n, Dtype::f64, cc::Op::sum, c, opts));
  }
  // Rank-dependent order: odd ranks from the last, even ranks by test() polling.
  std::vector<bool> finished(kRequests, false);
  int left = kRequests;
  while (left > 0) {
    for (int k = 0; k < kRequests; ++k) {
      const int i = me % 2 ? kRequests - 1 - k : k;
      if (finished[i] || (me % 2 == 0 && !reqs[i].test() && left > 1)) continue;
      auto r = reqs[i].wait();
      ASSERT_TRUE(r.ok()) << "request " << i << ": " << r.status().to_string();
      EXPECT_EQ(out[i], ref[i]) << "request " << i;
      finished[i] = true;
      --left;
    }
  }
  MPI_Comm_free(&other);
}

TEST(Nonblocking, WaitallAndAFreedCommunicator) {
  const size_t n = 50000;
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - world_rank(), &c);  // reversed ranks
  auto in = integers(n, 5);
  std::vector<double> out1(n), out2(n), ref(n);
  MPI_Allreduce(in.data(), ref.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::vector<cc::CollectiveRequest> reqs;
  cc::Options opts{"lz4", ErrorBound::lossless(), cc::Algorithm::Auto};
  reqs.push_back(cc::iallreduce(in.data(), out1.data(), n, Dtype::f64, cc::Op::sum, c, opts));
  reqs.push_back(cc::iallreduce(in.data(), out2.data(), n, Dtype::f64, cc::Op::sum, c, opts));
  MPI_Comm_free(&c);  // MPI allows it with operations pending: they still complete
  std::vector<cc::Report> reports;
  commpress::Status st = cc::waitall(reqs, &reports);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(out1, ref);
  EXPECT_EQ(out2, ref);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_FALSE(reqs[0].active());
}

// With a progress thread the operation finishes while this thread makes no MPI call at all
// (test() only reads the result). The bound on the loop only turns a missing progress
// thread into a failure instead of a hang.
TEST(Nonblocking, ProgressesWhileTheCallerComputes) {
  if (!cc::progress_thread_available()) GTEST_SKIP() << "no MPI_THREAD_MULTIPLE";
  const size_t n = 1 << 18;
  auto in = integers(n, 9);
  std::vector<double> out(n), ref(n);
  MPI_Allreduce(in.data(), ref.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  auto req = cc::iallreduce(in.data(), out.data(), n, Dtype::f64, cc::Op::sum, MPI_COMM_WORLD,
                            {"zstd-1", ErrorBound::lossless(), cc::Algorithm::DocRing});
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  volatile double sink = 0;
  while (!req.test() && std::chrono::steady_clock::now() < give_up)
    for (int i = 0; i < 100000; ++i) sink = sink + 1e-9 * i;
  ASSERT_TRUE(req.test()) << "no progress without MPI calls from the caller";
  auto r = req.wait();
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(out, ref);
}

TEST(Nonblocking, MismatchedArgumentsFailOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const int me = world_rank();
  std::vector<double> in(101), out(101);
  auto req = cc::iallreduce(in.data(), out.data(), me == 0 ? 100 : 101, Dtype::f64, cc::Op::sum,
                            MPI_COMM_WORLD, {"zstd-1", ErrorBound::lossless(), cc::Algorithm::DocRing});
  expect_failed_alike(req.wait().status(), "iallreduce counts", ErrorCode::mismatch);
  // The queue goes on after a failure.
  auto ok = cc::iallreduce(in.data(), out.data(), 101, Dtype::f64, cc::Op::sum, MPI_COMM_WORLD,
                           {"zstd-1", ErrorBound::lossless()});
  EXPECT_TRUE(ok.wait().ok());
}

TEST(Persistent, StartWaitDecidesOnceAndFollowsTheBuffers) {
  const size_t n = 40000;
  std::vector<double> in(n), out(n), ref(n);
  auto p = cc::allreduce_init(in.data(), out.data(), n, Dtype::f64, cc::Op::sum, MPI_COMM_WORLD,
                              {"zstd-1", ErrorBound::lossless()});
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->algorithm(), cc::Algorithm::Auto);
  cc::Algorithm decided = cc::Algorithm::Auto;
  for (int round = 0; round < 3; ++round) {
    const auto next = integers(n, 100 + round);
    std::copy(next.begin(), next.end(), in.begin());  // the same storage, new contents
    MPI_Allreduce(in.data(), ref.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ASSERT_TRUE(p->start().ok());
    EXPECT_EQ(p->start().code(), ErrorCode::invalid_argument) << "started twice";
    auto r = p->wait();
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(out, ref) << "round " << round;
    if (round == 0) decided = r->algorithm;
    EXPECT_EQ(r->algorithm, decided) << "round " << round;
    EXPECT_EQ(p->algorithm(), decided);
  }
}

TEST(Persistent, MismatchAtInitFailsOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<double> in(10), out(10);
  auto p = cc::allreduce_init(in.data(), out.data(), 10, Dtype::f64,
                              world_rank() == 1 ? cc::Op::max : cc::Op::sum, MPI_COMM_WORLD,
                              {"zstd-1", ErrorBound::lossless()});
  expect_failed_alike(p.status(), "allreduce_init op", ErrorCode::mismatch);
}

}  // namespace
