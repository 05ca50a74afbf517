// commpress::comm::allgather, ring and recursive doubling (Bruck) at any rank count:
// lossless results equal MPI_Allgather bit for bit, lossy ones are identical on every rank
// and within the reported bound, in place works, blocks of many chunks pipeline, and
// mismatched or damaged calls fail on every rank alike.
#include <gtest/gtest.h>

#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;

namespace {

const cc::Algorithm kCompressed[] = {cc::Algorithm::Ring, cc::Algorithm::RecursiveDoubling};

std::string label(cc::Algorithm a, const Config& c, Dtype d, size_t n) {
  return std::string(cc::algorithm_name(a)) + " " + describe(c) + " " + codec::dtype_name(d) +
         " n=" + std::to_string(n);
}

// Every rank's block, as the exact concatenation.
Bytes exact_gathered(Dtype d, size_t n, uint64_t seed, bool nonfinite = false) {
  Bytes all;
  for (int r = 0; r < world_size(); ++r) {
    Bytes b = make_bytes(d, n, seed + 17 * r, nonfinite);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

Bytes block_of(const Bytes& all, int rank, size_t block_bytes) {
  return Bytes(all.begin() + rank * block_bytes, all.begin() + (rank + 1) * block_bytes);
}

void check_lossless(cc::Algorithm alg, const Config& cfg, Dtype d, size_t n, bool in_place,
                    size_t chunk_bytes = 0) {
  const int me = world_rank(), p = world_size();
  const size_t bb = n * codec::dtype_size(d);
  Bytes exact = exact_gathered(d, n, 500 + n);
  Bytes mine = block_of(exact, me, bb);
  Bytes ref(exact.size());
  MPI_Allgather(mine.data(), int(bb), MPI_BYTE, ref.data(), int(bb), MPI_BYTE, MPI_COMM_WORLD);
  Bytes out(exact.size(), std::byte{0xcd});
  if (in_place) std::copy(mine.begin(), mine.end(), out.begin() + me * bb);
  cc::Options opts{cfg.codec, cfg.bound, alg, chunk_bytes};
  auto r = cc::allgather(in_place ? out.data() : mine.data(), out.data(), n, d, MPI_COMM_WORLD,
                         opts);
  std::string what = label(alg, cfg, d, n) + (in_place ? " in place" : "");
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
  EXPECT_TRUE(out == ref) << what << ": differs from MPI_Allgather";
  EXPECT_EQ(r->guaranteed_abs_bound, 0.0) << what;
  // Auto may decline compression (the cost model): then MPI's own allgather runs.
  if (!(alg == cc::Algorithm::Auto && r->algorithm == cc::Algorithm::Mpi)) {
    EXPECT_EQ(r->algorithm, alg == cc::Algorithm::Auto ? cc::Algorithm::Ring : alg) << what;
  }
  if (alg != cc::Algorithm::Mpi && p > 1 && n > 0) { EXPECT_GT(r->bytes_sent, 0u) << what; }
}

TEST(Allgather, LosslessEqualsMpiAllgather) {
  for (cc::Algorithm alg : {cc::Algorithm::Auto, cc::Algorithm::Ring,
                            cc::Algorithm::RecursiveDoubling})
    for (const Config& cfg : lossless_configs())
      for (Dtype d : all_dtypes())
        if (codec_supports(cfg.codec, d))
          for (size_t n : {size_t{0}, size_t{1}, size_t{333}, size_t{2053}})
            check_lossless(alg, cfg, d, n, false);
  for (Dtype d : all_dtypes())
    for (size_t n : {size_t{0}, size_t{1}, size_t{333}})
      check_lossless(cc::Algorithm::Mpi, lossless_configs()[1], d, n, false);
}

TEST(Allgather, InPlace) {
  for (cc::Algorithm alg : {cc::Algorithm::Mpi, cc::Algorithm::Ring,
                            cc::Algorithm::RecursiveDoubling})
    for (size_t n : {size_t{1}, size_t{1001}})
      check_lossless(alg, {"zstd-1", ErrorBound::lossless()}, Dtype::f64, n, true);
}

TEST(Allgather, SharedWindowEqualsMpiAllgather) {
  // 300000 doubles outgrow the segment's first 2 MiB; the size after it reuses the segment.
  for (Dtype d : all_dtypes())
    for (size_t n : {size_t{0}, size_t{1}, size_t{333}, size_t{300000}, size_t{2053}})
      for (bool in_place : {false, true})
        check_lossless(cc::Algorithm::SharedWindow, lossless_configs()[0], d, n, in_place);
  // A lossy request runs uncompressed all the same.
  check_lossless(cc::Algorithm::SharedWindow, {"szp", ErrorBound::relative(1e-3)}, Dtype::f32, 1001,
                 false);
}

TEST(Allgather, BlocksOfManyChunks) {
  for (cc::Algorithm alg : kCompressed)
    for (const Config& cfg : {Config{"none", ErrorBound::lossless()},
                              Config{"lz4", ErrorBound::lossless()}})
      check_lossless(alg, cfg, Dtype::f32, 5000, false, 2048);  // 10 chunks per block
}

TEST(Allgather, LossyIdenticalEverywhereAndWithinBound) {
  const int me = world_rank();
  for (cc::Algorithm alg : kCompressed)
    for (const Config& cfg : lossy_configs())
      for (Dtype d : {Dtype::f32, Dtype::f64})
        for (size_t n : {size_t{1}, size_t{700}, size_t{2053}})
          for (bool in_place : {false, true})
            for (size_t chunk : {size_t{0}, size_t{1024}}) {
              std::string what = label(alg, cfg, d, n) + (in_place ? " in place" : "") +
                                 " chunk=" + std::to_string(chunk);
              const size_t bb = n * codec::dtype_size(d);
              Bytes exact = exact_gathered(d, n, 900 + n, n == 700);
              Bytes mine = block_of(exact, me, bb);
              Bytes out(exact.size(), std::byte{0});
              if (in_place) std::copy(mine.begin(), mine.end(), out.begin() + me * bb);
              auto r = cc::allgather(in_place ? out.data() : mine.data(), out.data(), n, d,
                                     MPI_COMM_WORLD, {cfg.codec, cfg.bound, alg, chunk});
              ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
              double bound = r->guaranteed_abs_bound;
              EXPECT_TRUE(same_everywhere(bound)) << what << ": ranks report different bounds";
              // Positive, or 0 (exact) exactly where the promise is (REL over a range of 0).
              EXPECT_EQ(bound > 0, promised_bound(cfg, d, exact) > 0) << what;
              EXPECT_LE(bound, promised_bound(cfg, d, exact) * (1 + 1e-12)) << what;
              EXPECT_EQ(check_within(d, exact, out, bound), "") << what;
              EXPECT_TRUE(same_bytes_everywhere(out)) << what << ": ranks hold different results";
            }
}

void expect_bad_call(const std::string& what, size_t n, Dtype d, const cc::Options& opts,
                     ErrorCode expected, bool null_buffer = false) {
  Bytes send(2100 * 8, std::byte{1}), recv(2100 * 8 * world_size());
  auto r = cc::allgather(null_buffer ? nullptr : send.data(), recv.data(), n, d, MPI_COMM_WORLD,
                         opts);
  expect_failed_alike(r.status(), what, expected);
  check_lossless(cc::Algorithm::Ring, {"zstd-1", ErrorBound::lossless()}, Dtype::f32, 100, false);
}

TEST(Allgather, MismatchedArgumentsFailEverywhere) {
  const int me = world_rank(), p = world_size(), odd = p - 1;
  const cc::Options szp{"szp", ErrorBound::absolute(1e-3)};
  expect_bad_call("lossy codec on integers", 10, Dtype::i32, szp, ErrorCode::unsupported);
  expect_bad_call("unsupported algorithm", 10, Dtype::f32,
                  {"szp", szp.bound, cc::Algorithm::Binomial}, ErrorCode::invalid_argument);
  expect_bad_call("negative bound", 10, Dtype::f32, {"szp", ErrorBound::absolute(-1)},
                  ErrorCode::invalid_argument);
  expect_bad_call("null buffer on the last rank", 10, Dtype::f32, szp,
                  ErrorCode::invalid_argument, me == odd);
  if (p == 1) return;
  expect_bad_call("count", me == odd ? 9 : 10, Dtype::f32, szp, ErrorCode::mismatch);
  expect_bad_call("dtype", 10, me == odd ? Dtype::f64 : Dtype::f32, szp, ErrorCode::mismatch);
  expect_bad_call("codec", 10, Dtype::f32, {me == odd ? "szp-lossless" : "zstd-1"},
                  ErrorCode::mismatch);
  expect_bad_call("bound mode", 10, Dtype::f32,
                  {"szp", me == odd ? ErrorBound::relative(1e-3) : ErrorBound::absolute(1e-3)},
                  ErrorCode::mismatch);
  expect_bad_call("algorithm", 10, Dtype::f32,
                  {"szp", szp.bound,
                   me == odd ? cc::Algorithm::RecursiveDoubling : cc::Algorithm::Ring},
                  ErrorCode::mismatch);
}

TEST(Allgather, DamagedFrameFailsEverywhere) {
  if (world_size() == 1) GTEST_SKIP() << "no link to damage";
  const int me = world_rank(), p = world_size();
  for (cc::Algorithm alg : kCompressed)
    for (int bad : {0, p - 1}) {
      Bytes mine = make_bytes(Dtype::f64, 3000, 77 + me), out(3000 * 8 * p);
      if (me == bad) commpress::comm::detail::corrupt_next_send_for_testing();
      auto r = cc::allgather(mine.data(), out.data(), 3000, Dtype::f64, MPI_COMM_WORLD,
                             {"szp", ErrorBound::relative(1e-5), alg});
      commpress::comm::detail::corrupt_next_send_for_testing(false);
      expect_failed_alike(r.status(), std::string(cc::algorithm_name(alg)) +
                                          ": damaged frame from rank " + std::to_string(bad));
    }
  check_lossless(cc::Algorithm::RecursiveDoubling, {"szp-lossless", ErrorBound::lossless()},
                 Dtype::f32, 99, false);
}

}  // namespace
