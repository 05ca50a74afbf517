// commpress::comm::bcast at any rank count: lossless transfers equal MPI_Bcast bit for bit,
// lossy ones stay within the reported bound of the root's data, large messages pipeline in
// many chunks, and mismatched or damaged calls fail on every rank alike without hanging.
#include <gtest/gtest.h>

#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;
using commpress::Status;

namespace {

std::string label(cc::Algorithm a, const Config& c, Dtype d, size_t n, int root) {
  return std::string(cc::algorithm_name(a)) + " " + describe(c) + " " + codec::dtype_name(d) +
         " n=" + std::to_string(n) + " root=" + std::to_string(root);
}

// One bcast checked against MPI_Bcast of the same data.
void check_lossless(cc::Algorithm alg, const Config& cfg, Dtype d, size_t n, int root) {
  const int me = world_rank();
  Bytes exact = make_bytes(d, n, 1000 + n + root);
  Bytes buf = me == root ? exact : Bytes(exact.size(), std::byte{0xab});
  Bytes ref = buf;
  MPI_Bcast(ref.data(), int(ref.size()), MPI_BYTE, root, MPI_COMM_WORLD);
  cc::Options opts{cfg.codec, cfg.bound, alg};
  auto r = cc::bcast(buf.data(), n, d, root, MPI_COMM_WORLD, opts);
  std::string what = label(alg, cfg, d, n, root);
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
  EXPECT_TRUE(buf == ref) << what << ": differs from MPI_Bcast";
  EXPECT_EQ(r->guaranteed_abs_bound, 0.0) << what;
  // Auto may decline compression (the cost model): then MPI's own bcast runs, or the plain
  // tree where the profile measured MPI's slower.
  if (alg == cc::Algorithm::Auto &&
      (r->algorithm == cc::Algorithm::Mpi || r->algorithm == cc::Algorithm::PlainBinomial))
    return;
  EXPECT_EQ(r->algorithm, alg == cc::Algorithm::Auto ? cc::Algorithm::Binomial : alg) << what;
}

TEST(Bcast, LosslessEqualsMpiBcast) {
  for (cc::Algorithm alg : {cc::Algorithm::Auto, cc::Algorithm::Binomial})
    for (const Config& cfg : lossless_configs())
      for (Dtype d : all_dtypes())
        if (codec_supports(cfg.codec, d))
          for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{4099}})
            for (int root : roots()) check_lossless(alg, cfg, d, n, root);
  // MPI's own bcast behind the same call (the codec is irrelevant there).
  for (Dtype d : all_dtypes())
    for (size_t n : {size_t{0}, size_t{1}, size_t{777}})
      for (int root : roots()) check_lossless(cc::Algorithm::Mpi, lossless_configs()[1], d, n, root);
}

// The plain binomial tree (uncompressed, unsegmented): MPI_Bcast's bytes for every dtype,
// count and root, whatever codec was asked for.
TEST(Bcast, PlainBinomialEqualsMpiBcast) {
  for (Dtype d : all_dtypes())
    for (size_t n : {size_t{0}, size_t{1}, size_t{777}, size_t{100003}})
      for (int root : roots()) {
        check_lossless(cc::Algorithm::PlainBinomial, lossless_configs()[1], d, n, root);
        if (codec::is_float(d))
          check_lossless(cc::Algorithm::PlainBinomial, {"szp", ErrorBound::relative(1e-3)}, d, n,
                         root);
      }
}

// The shared window: MPI_Bcast's bytes for every dtype, count and root; the 600000-element
// messages outgrow the segment's first 2 MiB, and the smaller ones after them reuse it.
TEST(Bcast, SharedWindowEqualsMpiBcast) {
  for (Dtype d : all_dtypes())
    for (size_t n : {size_t{0}, size_t{1}, size_t{777}, size_t{600000}, size_t{100003}})
      for (int root : roots()) {
        check_lossless(cc::Algorithm::SharedWindow, lossless_configs()[1], d, n, root);
        if (codec::is_float(d))
          check_lossless(cc::Algorithm::SharedWindow, {"szp", ErrorBound::relative(1e-3)}, d, n,
                         root);
      }
}

TEST(Bcast, LossyWithinReportedBound) {
  const int me = world_rank();
  for (const Config& cfg : lossy_configs())
    for (Dtype d : {Dtype::f32, Dtype::f64})
      for (size_t n : {size_t{1}, size_t{1000}, size_t{4099}})
        for (int root : roots())
          for (bool nonfinite : {false, true}) {
            std::string what = label(cc::Algorithm::Binomial, cfg, d, n, root) +
                               (nonfinite ? " nonfinite" : "");
            Bytes exact = make_bytes(d, n, 2000 + n + root, nonfinite);
            // The other ranks' buffers hold values far outside the root's range (0x7e bytes:
            // about 8e37 as f32, 1e300 as f64): a REL bound taken over them would be huge.
            Bytes buf = me == root ? exact : Bytes(exact.size(), std::byte{0x7e});
            auto r = cc::bcast(buf.data(), n, d, root, MPI_COMM_WORLD,
                               {cfg.codec, cfg.bound, cc::Algorithm::Binomial});
            ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
            double bound = r->guaranteed_abs_bound;
            EXPECT_TRUE(same_everywhere(bound)) << what << ": ranks report different bounds";
            double promised = promised_bound(cfg, d, exact);
            // Positive, or 0 (exact) exactly where the promise is (REL over a range of 0).
            EXPECT_EQ(bound > 0, promised_bound(cfg, d, exact) > 0) << what;
            EXPECT_LE(bound, promised * (1 + 1e-12)) << what;
            if (me == root) { EXPECT_TRUE(buf == exact) << what << ": root buffer changed"; }
            EXPECT_EQ(check_within(d, exact, buf, bound), "") << what;
            if (me == root && world_size() > 1) { EXPECT_GT(r->bytes_sent, 0u) << what; }
          }
}

// Several chunks per message: the stream pipelines and relays chunk by chunk.
TEST(Bcast, PipelinesManyChunks) {
  const int me = world_rank();
  const size_t n = 30000;  // 120 KB of f32 in 4 KiB chunks
  for (const Config& cfg : {Config{"none", ErrorBound::lossless()},
                            Config{"zstd-1", ErrorBound::lossless()},
                            Config{"szp", ErrorBound::absolute(1e-2)}})
    for (int root : roots()) {
      std::string what = label(cc::Algorithm::Binomial, cfg, Dtype::f32, n, root);
      Bytes exact = make_bytes(Dtype::f32, n, 3000 + root);
      Bytes buf = me == root ? exact : Bytes(exact.size(), std::byte{0});
      cc::Options opts{cfg.codec, cfg.bound, cc::Algorithm::Binomial, 4096};
      auto r = cc::bcast(buf.data(), n, Dtype::f32, root, MPI_COMM_WORLD, opts);
      ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
      EXPECT_EQ(check_within(Dtype::f32, exact, buf, r->guaranteed_abs_bound), "") << what;
      if (cfg.bound.mode == codec::BoundMode::lossless) { EXPECT_TRUE(buf == exact) << what; }
    }
}

// A bad call on some rank: every rank returns the same error, then a good call works.
void expect_bad_call(const std::string& what, size_t n, Dtype d, int root, const cc::Options& opts,
                     ErrorCode expected, bool null_buffer = false) {
  Bytes buf(4100 * 8, std::byte{1});
  auto r = cc::bcast(null_buffer ? nullptr : buf.data(), n, d, root, MPI_COMM_WORLD, opts);
  expect_failed_alike(r.status(), what, expected);
  check_lossless(cc::Algorithm::Binomial, {"zstd-1", ErrorBound::lossless()}, Dtype::f32, 100, 0);
}

TEST(Bcast, MismatchedArgumentsFailEverywhere) {
  const int me = world_rank(), p = world_size();
  const cc::Options szp{"szp", ErrorBound::absolute(1e-3)};
  // Wrong on every rank alike (meaningful at any rank count).
  expect_bad_call("root out of range", 10, Dtype::f32, p, szp, ErrorCode::invalid_argument);
  expect_bad_call("lossy codec without a bound", 10, Dtype::f32, 0, {"szp"},
                  ErrorCode::invalid_argument);
  expect_bad_call("szp on bytes", 10, Dtype::u8, 0, szp, ErrorCode::unsupported);
  expect_bad_call("unsupported algorithm", 10, Dtype::f32, 0,
                  {"szp", szp.bound, cc::Algorithm::Ring}, ErrorCode::invalid_argument);
  expect_bad_call("unknown codec", 10, Dtype::f32, 0, {"no-such-codec"},
                  ErrorCode::invalid_argument);
  // Wrong on one rank only.
  const int odd = p - 1;
  expect_bad_call("null buffer on the last rank", 10, Dtype::f32, 0, szp,
                  ErrorCode::invalid_argument, me == odd);
  if (p == 1) return;  // the disagreements below need two ranks
  expect_bad_call("count", me == odd ? 11 : 10, Dtype::f32, 0, szp, ErrorCode::mismatch);
  expect_bad_call("dtype", 10, me == odd ? Dtype::f64 : Dtype::f32, 0, szp, ErrorCode::mismatch);
  expect_bad_call("root", 10, Dtype::f32, me == odd ? 1 : 0, szp, ErrorCode::mismatch);
  expect_bad_call("codec", 10, Dtype::f32, 0, {me == odd ? "zstd-1" : "lz4"}, ErrorCode::mismatch);
  expect_bad_call("bound", 10, Dtype::f32, 0,
                  {"szp", ErrorBound::absolute(me == odd ? 2e-3 : 1e-3)}, ErrorCode::mismatch);
  expect_bad_call("algorithm", 10, Dtype::f32, 0,
                  {"szp", szp.bound, me == odd ? cc::Algorithm::Mpi : cc::Algorithm::Binomial},
                  ErrorCode::mismatch);
  expect_bad_call("chunk size", 10, Dtype::f32, 0,
                  {"szp", szp.bound, cc::Algorithm::Auto, me == odd ? 4096u : 0u},
                  ErrorCode::mismatch);
}

TEST(Bcast, DamagedFrameFailsEverywhere) {
  if (world_size() == 1) GTEST_SKIP() << "no link to damage";
  const int me = world_rank();
  for (int root : roots()) {
    for (size_t chunk : {size_t{0}, size_t{4096}}) {
      Bytes buf = make_bytes(Dtype::f32, 5000, 4000 + root);
      if (me == root) commpress::comm::detail::corrupt_next_send_for_testing();
      auto r = cc::bcast(buf.data(), 5000, Dtype::f32, root, MPI_COMM_WORLD,
                         {"szp", ErrorBound::absolute(1e-3), cc::Algorithm::Binomial, chunk});
      commpress::comm::detail::corrupt_next_send_for_testing(false);
      expect_failed_alike(r.status(), "damaged frame from root " + std::to_string(root));
    }
  }
  check_lossless(cc::Algorithm::Binomial, {"szp-lossless", ErrorBound::lossless()}, Dtype::f64,
                 321, 0);
}

}  // namespace
