// commpress::comm::alltoall / alltoallv, pairwise exchange and Bruck at any rank count:
// lossless results equal MPI_Alltoall(v) bit for bit, lossy ones are within the reported bound
// of what the sender held on every element delivered, in place works, and mismatched counts
// fail on every rank alike.
#include <gtest/gtest.h>

#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;

namespace {

// The block rank `from` sends to rank `to`: distinct data for every pair.
Bytes pair_block(Dtype d, size_t n, int from, int to) {
  return make_bytes(d, n, 7000 + 131 * uint64_t(from) + 17 * uint64_t(to) + n);
}

Bytes send_buffer(Dtype d, size_t n) {
  Bytes all;
  for (int to = 0; to < world_size(); ++to) {
    Bytes b = pair_block(d, n, world_rank(), to);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

// What this rank must receive: block `from` is what rank `from` sent it.
Bytes expected(Dtype d, size_t n) {
  Bytes all;
  for (int from = 0; from < world_size(); ++from) {
    Bytes b = pair_block(d, n, from, world_rank());
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

const cc::Algorithm kAll[] = {cc::Algorithm::Auto, cc::Algorithm::Mpi, cc::Algorithm::Pairwise,
                              cc::Algorithm::Bruck};

TEST(Alltoall, LosslessEqualsMpiAlltoall) {
  for (cc::Algorithm alg : kAll)
    for (const Config& cfg : {lossless_configs()[0], lossless_configs()[1]})
      for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::i32})
        for (size_t n : {size_t{0}, size_t{1}, size_t{777}}) {
          Bytes send = send_buffer(d, n), out(send.size(), std::byte{0xcd});
          cc::Options opts{cfg.codec, cfg.bound, alg, 4096};
          auto r = cc::alltoall(send.data(), out.data(), n, d, MPI_COMM_WORLD, opts);
          const std::string what = std::string(cc::algorithm_name(alg)) + " " + describe(cfg) +
                                   " " + codec::dtype_name(d) + " n=" + std::to_string(n);
          ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
          EXPECT_TRUE(out == expected(d, n)) << what;
          EXPECT_EQ(r->guaranteed_abs_bound, 0.0) << what;
          if (alg != cc::Algorithm::Auto) { EXPECT_EQ(r->algorithm, alg) << what; }
          if (alg != cc::Algorithm::Mpi && world_size() > 1 && n > 0) {
            EXPECT_GT(r->bytes_sent, 0u) << what;
          }
        }
}

TEST(Alltoall, LossyWithinBoundOnEveryElement) {
  for (cc::Algorithm alg : {cc::Algorithm::Pairwise, cc::Algorithm::Bruck})
    for (const Config& cfg : lossy_configs())
      for (Dtype d : {Dtype::f32, Dtype::f64}) {
        const size_t n = 3001;
        Bytes send = send_buffer(d, n), out(send.size());
        cc::Options opts{cfg.codec, cfg.bound, alg, 8192};
        auto r = cc::alltoall(send.data(), out.data(), n, d, MPI_COMM_WORLD, opts);
        const std::string what = std::string(cc::algorithm_name(alg)) + " " + describe(cfg);
        ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
        EXPECT_GT(r->guaranteed_abs_bound, 0.0) << what;
        EXPECT_TRUE(same_everywhere(r->guaranteed_abs_bound)) << what;
        // ABS: the bound itself; REL: no more than rel x the range of everything sent.
        if (cfg.bound.mode == codec::BoundMode::abs) {
          EXPECT_LE(r->guaranteed_abs_bound, cfg.bound.value) << what;
        }
        EXPECT_EQ(check_within(d, expected(d, n), out, r->guaranteed_abs_bound), "") << what;
        if (world_size() > 1) { EXPECT_LT(r->bytes_sent, r->raw_bytes) << what; }
      }
}

TEST(Alltoall, InPlace) {
  for (cc::Algorithm alg : {cc::Algorithm::Mpi, cc::Algorithm::Pairwise, cc::Algorithm::Bruck}) {
    const size_t n = 501;
    Bytes buf = send_buffer(Dtype::f64, n);
    auto r = cc::alltoall(buf.data(), buf.data(), n, Dtype::f64, MPI_COMM_WORLD,
                          {"zstd-1", ErrorBound::lossless(), alg});
    ASSERT_TRUE(r.ok()) << cc::algorithm_name(alg) << ": " << r.status().to_string();
    EXPECT_TRUE(buf == expected(Dtype::f64, n)) << cc::algorithm_name(alg);
  }
}

// Rank r sends (r + 2 * to) % 5 * 100 elements to `to`, packed in reverse order of ranks.
TEST(Alltoall, VariableBlocksEqualMpiAlltoallv) {
  const int p = world_size(), me = world_rank();
  auto count = [](int from, int to) { return size_t((from + 2 * to) % 5) * 100; };
  for (cc::Algorithm alg : {cc::Algorithm::Auto, cc::Algorithm::Mpi, cc::Algorithm::Pairwise})
    for (const Config& cfg : {Config{"zstd-1", ErrorBound::lossless()},
                              Config{"szp", ErrorBound::absolute(1e-3)}}) {
      std::vector<size_t> sc(p), sd(p), rc(p), rd(p);
      size_t at = 0;
      for (int to = p - 1; to >= 0; --to) sd[to] = at, sc[to] = count(me, to), at += sc[to] + 3;
      Bytes send(at * 8);
      for (int to = 0; to < p; ++to) {
        Bytes b = pair_block(Dtype::f64, sc[to], me, to);
        std::copy(b.begin(), b.end(), send.begin() + sd[to] * 8);
      }
      size_t total = 0;
      for (int from = 0; from < p; ++from) rd[from] = total, rc[from] = count(from, me), total += rc[from];
      Bytes out(total * 8), want;
      for (int from = 0; from < p; ++from) {
        Bytes b = pair_block(Dtype::f64, rc[from], from, me);
        want.insert(want.end(), b.begin(), b.end());
      }
      auto r = cc::alltoallv(send.data(), sc, sd, out.data(), rc, rd, Dtype::f64, MPI_COMM_WORLD,
                             {cfg.codec, cfg.bound, alg});
      const std::string what = std::string(cc::algorithm_name(alg)) + " " + describe(cfg);
      if (alg == cc::Algorithm::Mpi && cfg.bound.mode != codec::BoundMode::lossless) continue;
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      if (cfg.bound.mode == codec::BoundMode::lossless) {
        EXPECT_TRUE(out == want) << what;
      } else {
        EXPECT_EQ(check_within(Dtype::f64, want, out, r->guaranteed_abs_bound), "") << what;
      }
    }
}

TEST(Alltoall, MismatchedCountsFailEverywhere) {
  const int p = world_size(), me = world_rank();
  if (p < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<size_t> sc(p, 10), sd(p), rc(p, 10), rd(p);
  for (int r = 0; r < p; ++r) sd[r] = rd[r] = size_t(r) * 20;
  if (me == p - 1) rc[0] = 11;  // expects one element more from rank 0 than it sends
  Bytes send(p * 20 * 8), out(p * 20 * 8);
  auto r = cc::alltoallv(send.data(), sc, sd, out.data(), rc, rd, Dtype::f64, MPI_COMM_WORLD,
                         {"zstd-1", ErrorBound::lossless(), cc::Algorithm::Pairwise});
  expect_failed_alike(r.status(), "alltoallv counts", ErrorCode::mismatch);
  // Different counts in alltoall: a mismatch of the agreed count.
  Bytes a(p * 12 * 8), b(p * 12 * 8);
  auto s = cc::alltoall(a.data(), b.data(), me == 0 ? 12 : 11, Dtype::f64, MPI_COMM_WORLD,
                        {"zstd-1", ErrorBound::lossless(), cc::Algorithm::Bruck});
  expect_failed_alike(s.status(), "alltoall counts", ErrorCode::mismatch);
}

}  // namespace
