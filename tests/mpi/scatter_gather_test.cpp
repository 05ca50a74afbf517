// commpress::comm::scatter and gather over a binomial tree at any rank count and root:
// lossless results equal MPI_Scatter / MPI_Gather bit for bit, lossy ones stay within the
// reported bound, in place works at the root, and mismatched or damaged calls fail on every
// rank alike without hanging.
#include <gtest/gtest.h>

#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;

namespace {

enum class Op { scatter, gather };

std::string label(Op op, cc::Algorithm a, const Config& c, Dtype d, size_t n, int root,
                  bool in_place) {
  return std::string(op == Op::scatter ? "scatter " : "gather ") + cc::algorithm_name(a) + " " +
         describe(c) + " " + codec::dtype_name(d) + " n=" + std::to_string(n) +
         " root=" + std::to_string(root) + (in_place ? " in place" : "");
}

// The root's array of all blocks (scatter) / every rank's block (gather): rank r's block
// is the r-th slice.
Bytes all_blocks(Dtype d, size_t n, uint64_t seed, bool nonfinite = false) {
  Bytes all;
  for (int r = 0; r < world_size(); ++r) {
    Bytes b = make_bytes(d, n, seed + 31 * r, nonfinite);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

struct Outcome {
  commpress::Result<cc::Report> report;
  Bytes result;  // scatter: this rank's block; gather: the root's whole array (else empty)
};

// Runs op with this rank's part of `all`; in place only changes the root's arguments.
Outcome run(Op op, const Bytes& all, size_t n, Dtype d, int root, bool in_place,
            const cc::Options& opts) {
  const int me = world_rank();
  const size_t bb = n * codec::dtype_size(d);
  Bytes mine(all.begin() + me * bb, all.begin() + (me + 1) * bb);
  if (op == Op::scatter) {
    Bytes send = me == root ? all : Bytes{}, out(bb, std::byte{0xee});
    bool ip = in_place && me == root;
    auto r = cc::scatter(send.data(), ip ? send.data() : out.data(), n, d, root, MPI_COMM_WORLD,
                         opts);
    if (ip) out.assign(send.begin() + me * bb, send.begin() + (me + 1) * bb);
    return {std::move(r), out};
  }
  Bytes out(me == root ? all.size() : 0, std::byte{0xee});
  bool ip = in_place && me == root;
  if (ip) std::copy(mine.begin(), mine.end(), out.begin() + me * bb);
  auto r = cc::gather(ip ? out.data() : mine.data(), out.data(), n, d, root, MPI_COMM_WORLD, opts);
  return {std::move(r), out};
}

// What MPI itself delivers to this rank.
Bytes mpi_reference(Op op, const Bytes& all, size_t n, Dtype d, int root) {
  const int me = world_rank();
  const int bb = int(n * codec::dtype_size(d));
  if (op == Op::scatter) {
    Bytes out(bb);
    MPI_Scatter(all.data(), bb, MPI_BYTE, out.data(), bb, MPI_BYTE, root, MPI_COMM_WORLD);
    return out;
  }
  Bytes out(me == root ? all.size() : 0);
  MPI_Gather(all.data() + me * bb, bb, MPI_BYTE, out.data(), bb, MPI_BYTE, root, MPI_COMM_WORLD);
  return out;
}

void check_lossless(Op op, cc::Algorithm alg, const Config& cfg, Dtype d, size_t n, int root,
                    bool in_place = false, size_t chunk = 0) {
  std::string what = label(op, alg, cfg, d, n, root, in_place);
  Bytes all = all_blocks(d, n, 40 + n + root);
  Bytes ref = mpi_reference(op, all, n, d, root);
  auto got = run(op, all, n, d, root, in_place, {cfg.codec, cfg.bound, alg, chunk});
  ASSERT_TRUE(got.report.ok()) << what << ": " << got.report.status().to_string();
  EXPECT_TRUE(got.result == ref) << what << ": differs from MPI";
  EXPECT_EQ(got.report->guaranteed_abs_bound, 0.0) << what;
  // Auto may decline compression (the cost model): then MPI's own operation runs.
  if (alg == cc::Algorithm::Auto && got.report->algorithm == cc::Algorithm::Mpi) return;
  EXPECT_EQ(got.report->algorithm, alg == cc::Algorithm::Auto ? cc::Algorithm::Binomial : alg)
      << what;
}

TEST(ScatterGather, LosslessEqualsMpi) {
  for (Op op : {Op::scatter, Op::gather}) {
    for (cc::Algorithm alg : {cc::Algorithm::Auto, cc::Algorithm::Binomial})
      for (const Config& cfg : lossless_configs())
        for (Dtype d : all_dtypes())
          if (codec_supports(cfg.codec, d))
            for (size_t n : {size_t{0}, size_t{1}, size_t{517}})
              for (int root : roots()) check_lossless(op, alg, cfg, d, n, root);
    for (Dtype d : all_dtypes())
      for (int root : roots()) check_lossless(op, cc::Algorithm::Mpi, lossless_configs()[2], d, 33, root);
  }
}

TEST(ScatterGather, InPlaceAndManyChunks) {
  for (Op op : {Op::scatter, Op::gather})
    for (cc::Algorithm alg : {cc::Algorithm::Mpi, cc::Algorithm::Binomial})
      for (int root : roots()) {
        check_lossless(op, alg, {"zstd-1", ErrorBound::lossless()}, Dtype::f64, 300, root, true);
        check_lossless(op, alg, {"lz4", ErrorBound::lossless()}, Dtype::f32, 3001, root, false,
                       1024);  // 12 chunks per block
      }
}

TEST(ScatterGather, LossyWithinReportedBound) {
  const int me = world_rank();
  for (Op op : {Op::scatter, Op::gather})
    for (const Config& cfg : lossy_configs())
      for (Dtype d : {Dtype::f32, Dtype::f64})
        for (size_t n : {size_t{1}, size_t{900}})
          for (int root : roots())
            for (bool in_place : {false, true}) {
              std::string what = label(op, cc::Algorithm::Binomial, cfg, d, n, root, in_place);
              Bytes all = all_blocks(d, n, 70 + n + root, n == 900);
              auto got = run(op, all, n, d, root, in_place,
                             {cfg.codec, cfg.bound, cc::Algorithm::Binomial});
              ASSERT_TRUE(got.report.ok()) << what << ": " << got.report.status().to_string();
              double bound = got.report->guaranteed_abs_bound;
              EXPECT_TRUE(same_everywhere(bound)) << what << ": ranks report different bounds";
              // Positive, or 0 (exact) exactly where the promise is (REL over a range of 0).
              EXPECT_EQ(bound > 0, promised_bound(cfg, d, all) > 0) << what;
              EXPECT_LE(bound, promised_bound(cfg, d, all) * (1 + 1e-12)) << what;
              const size_t bb = n * codec::dtype_size(d);
              Bytes expect = op == Op::gather
                                 ? (me == root ? all : Bytes{})
                                 : Bytes(all.begin() + me * bb, all.begin() + (me + 1) * bb);
              EXPECT_EQ(check_within(d, expect, got.result, bound), "") << what;
            }
}

TEST(ScatterGather, MismatchedArgumentsFailEverywhere) {
  const int me = world_rank(), p = world_size(), odd = p - 1;
  const cc::Options szp{"szp", ErrorBound::absolute(1e-3)};
  for (Op op : {Op::scatter, Op::gather}) {
    auto bad = [&](const std::string& what, size_t n, Dtype d, int root, const cc::Options& opts,
                   ErrorCode expected, bool null_buffers = false) {
      Bytes a(400 * 8 * p, std::byte{2}), b(400 * 8 * p, std::byte{3});
      void* x = null_buffers ? nullptr : a.data();
      void* y = null_buffers ? nullptr : b.data();
      auto r = op == Op::scatter ? cc::scatter(x, y, n, d, root, MPI_COMM_WORLD, opts)
                                 : cc::gather(x, y, n, d, root, MPI_COMM_WORLD, opts);
      expect_failed_alike(r.status(), (op == Op::scatter ? "scatter " : "gather ") + what,
                          expected);
      check_lossless(op, cc::Algorithm::Binomial, {"zstd-1", ErrorBound::lossless()}, Dtype::f32,
                     50, 0);
    };
    bad("root out of range", 10, Dtype::f32, -1, szp, ErrorCode::invalid_argument);
    bad("unsupported algorithm", 10, Dtype::f32, 0, {"szp", szp.bound, cc::Algorithm::Ring},
        ErrorCode::invalid_argument);
    bad("null buffers on the last rank", 10, Dtype::f32, 0, szp, ErrorCode::invalid_argument,
        me == odd);
    if (p == 1) continue;
    bad("count", me == odd ? 12 : 10, Dtype::f32, 0, szp, ErrorCode::mismatch);
    bad("dtype", 10, me == odd ? Dtype::f64 : Dtype::f32, 0, szp, ErrorCode::mismatch);
    bad("root", 10, Dtype::f32, me == odd ? odd : 0, szp, ErrorCode::mismatch);
    bad("codec", 10, Dtype::f32, 0, {me == odd ? "none" : "lz4"}, ErrorCode::mismatch);
  }
}

TEST(ScatterGather, DamagedFrameFailsEverywhere) {
  const int me = world_rank(), p = world_size();
  if (p == 1) GTEST_SKIP() << "no link to damage";
  for (Op op : {Op::scatter, Op::gather})
    for (int root : roots()) {
      // scatter: the root sends first; gather: a leaf (the last vrank) does.
      int sender = op == Op::scatter ? root : (root + p - 1) % p;
      Bytes all = all_blocks(Dtype::f32, 2000, 5);
      if (me == sender) commpress::comm::detail::corrupt_next_send_for_testing();
      auto got = run(op, all, 2000, Dtype::f32, root, false,
                     {"szp", ErrorBound::absolute(1e-4), cc::Algorithm::Binomial});
      commpress::comm::detail::corrupt_next_send_for_testing(false);
      expect_failed_alike(got.report.status(), std::string(op == Op::scatter ? "scatter" : "gather") +
                                                   " damaged by rank " + std::to_string(sender));
    }
  check_lossless(Op::gather, cc::Algorithm::Binomial, {"szp-lossless", ErrorBound::lossless()},
                 Dtype::f64, 77, p - 1);
}

}  // namespace
