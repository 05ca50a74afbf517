// commpress::comm point-to-point: send/recv and isend/irecv carry every dtype bit-exactly
// with lossless codecs and within the sender's bound with lossy ones, pipeline many chunks,
// and turn every disagreement between sender and receiver (count, dtype, codec, bound,
// algorithm, a failing sender or receiver, a damaged frame) into an error on the receiver
// after consuming exactly the sender's messages: the next transfer on the same tag works.
#include <gtest/gtest.h>

#include "mpi/comm_test_support.hpp"

using namespace commpress::testing::comm;
using commpress::ErrorCode;

namespace {

// Pairs (0,1), (2,3), ...; with an odd rank count the last rank talks to itself via
// isend/irecv, and in the blocking tests it sits out.
int partner() {
  int me = world_rank(), p = world_size();
  int peer = me ^ 1;
  return peer < p ? peer : -1;
}
bool is_sender() { return world_rank() % 2 == 0; }

std::string label(cc::Algorithm a, const Config& c, Dtype d, size_t n) {
  return std::string(cc::algorithm_name(a)) + " " + describe(c) + " " + codec::dtype_name(d) +
         " n=" + std::to_string(n);
}

// One blocking transfer from the even to the odd rank of each pair; the receiver checks.
void transfer(cc::Algorithm alg, const Config& cfg, Dtype d, size_t n, size_t chunk = 0,
              int tag = 7) {
  const int peer = partner();
  if (peer < 0) return;
  std::string what = label(alg, cfg, d, n);
  Bytes exact = make_bytes(d, n, 300 + n, n % 2 == 1);
  cc::Options opts{cfg.codec, cfg.bound, alg, chunk};
  if (is_sender()) {
    auto r = cc::send(exact.data(), n, d, peer, tag, MPI_COMM_WORLD, opts);
    ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
    EXPECT_EQ(r->raw_bytes, exact.size()) << what;
    return;
  }
  Bytes got(exact.size(), std::byte{0x5c});
  auto r = cc::recv(got.data(), n, d, peer, tag, MPI_COMM_WORLD, opts);
  ASSERT_TRUE(r.ok()) << what << ": " << r.status().to_string();
  if (cfg.bound.mode == codec::BoundMode::lossless || cfg.codec == "none") {
    EXPECT_TRUE(got == exact) << what;
    EXPECT_EQ(r->guaranteed_abs_bound, 0.0) << what;
  } else {
    double bound = r->guaranteed_abs_bound;
    // Positive, or 0 (exact) exactly where the promise is (REL over a range of 0).
    EXPECT_EQ(bound > 0, promised_bound(cfg, d, exact) > 0) << what;
    EXPECT_LE(bound, promised_bound(cfg, d, exact) * (1 + 1e-12)) << what;
    EXPECT_EQ(check_within(d, exact, got, bound), "") << what;
  }
}

TEST(P2p, LosslessBitExact) {
  for (cc::Algorithm alg : {cc::Algorithm::Auto, cc::Algorithm::Direct, cc::Algorithm::Mpi})
    for (const Config& cfg : lossless_configs())
      for (Dtype d : all_dtypes())
        if (codec_supports(cfg.codec, d))
          for (size_t n : {size_t{0}, size_t{1}, size_t{80 / 4}, size_t{4097}})
            transfer(alg, cfg, d, n);
}

TEST(P2p, LossyWithinSenderBound) {
  for (const Config& cfg : lossy_configs())
    for (Dtype d : {Dtype::f32, Dtype::f64})
      for (size_t n : {size_t{1}, size_t{1000}, size_t{4097}}) transfer(cc::Algorithm::Direct, cfg, d, n);
}

TEST(P2p, PipelinesManyChunks) {
  for (const Config& cfg : {Config{"none", ErrorBound::lossless()},
                            Config{"szp", ErrorBound::relative(1e-3)},
                            Config{"zstd-1", ErrorBound::lossless()}})
    transfer(cc::Algorithm::Direct, cfg, Dtype::f64, 20000, 4096);  // 40 chunks
}

// Even ranks send with `sender`, odd ranks receive with `receiver`; the receiver must fail
// with `expected`, and then a good transfer on the same tag must still work.
// The receiver's message must name both sides' values (names).
void expect_refused(const std::string& what, size_t n_send, Dtype d_send, const cc::Options& sender,
                    size_t n_recv, Dtype d_recv, const cc::Options& receiver, ErrorCode expected,
                    bool sender_fails = false, std::vector<std::string> names = {}) {
  const int peer = partner();
  if (peer >= 0) {
    Bytes buf(5000 * 8, std::byte{9});
    if (is_sender()) {
      auto r = cc::send(buf.data(), n_send, d_send, peer, 3, MPI_COMM_WORLD, sender);
      EXPECT_EQ(r.ok(), !sender_fails) << what << ": " << r.status().to_string();
    } else {
      auto r = cc::recv(buf.data(), n_recv, d_recv, peer, 3, MPI_COMM_WORLD, receiver);
      EXPECT_EQ(r.status().code(), expected) << what << ": " << r.status().to_string();
      EXPECT_FALSE(r.ok()) << what;
      for (const std::string& name : names) {
        EXPECT_NE(r.status().message().find(name), std::string::npos)
            << what << ": '" << name << "' missing from: " << r.status().message();
      }
    }
  }
  transfer(cc::Algorithm::Direct, {"szp", ErrorBound::absolute(1e-2)}, Dtype::f32, 3000, 4096, 3);
}

TEST(P2p, DisagreementsFailOnTheReceiverAndDrain) {
  const cc::Options szp{"szp", ErrorBound::absolute(1e-3)}, chunked{"szp", szp.bound,
                                                                    cc::Algorithm::Auto, 1024};
  expect_refused("count", 3000, Dtype::f32, chunked, 2999, Dtype::f32, chunked, ErrorCode::mismatch,
                 false, {"3000", "2999"});
  expect_refused("count, fewer chunks", 3000, Dtype::f32, chunked, 1000, Dtype::f32, chunked,
                 ErrorCode::mismatch, false, {"3000", "1000"});
  expect_refused("count, more chunks", 1000, Dtype::f32, chunked, 3000, Dtype::f32, chunked,
                 ErrorCode::mismatch, false, {"3000", "1000"});
  expect_refused("dtype", 1000, Dtype::f64, szp, 1000, Dtype::f32, szp, ErrorCode::mismatch, false,
                 {"f64", "f32"});
  expect_refused("codec", 1000, Dtype::f32, {"lz4"}, 1000, Dtype::f32, {"zstd-1"},
                 ErrorCode::mismatch, false, {"lz4", "zstd-1"});
  expect_refused("bound", 1000, Dtype::f32, szp, 1000, Dtype::f32,
                 {"szp", ErrorBound::relative(1e-3)}, ErrorCode::mismatch, false, {"abs", "rel"});
  expect_refused("sender plain, receiver compressed", 1000, Dtype::f32,
                 {"szp", szp.bound, cc::Algorithm::Mpi}, 1000, Dtype::f32, szp,
                 ErrorCode::mismatch);
  expect_refused("sender compressed, receiver plain", 3000, Dtype::f32, chunked, 3000, Dtype::f32,
                 {"szp", szp.bound, cc::Algorithm::Mpi}, ErrorCode::mismatch);
  expect_refused("plain sizes", 100, Dtype::f64, {"none", {}, cc::Algorithm::Mpi}, 100, Dtype::f32,
                 {"none", {}, cc::Algorithm::Mpi}, ErrorCode::mismatch);
  expect_refused("failing sender", 1000, Dtype::f32, {"no-such-codec"}, 1000, Dtype::f32, szp,
                 ErrorCode::invalid_argument, true);
  expect_refused("failing plain sender", 1000, Dtype::f32,
                 {"none", {}, cc::Algorithm::Ring}, 1000, Dtype::f32,
                 {"none", {}, cc::Algorithm::Mpi}, ErrorCode::invalid_argument, true);
  expect_refused("failing receiver", 3000, Dtype::f32, chunked, 3000, Dtype::f32,
                 {"szp"}, ErrorCode::invalid_argument);
}

// A damaged chunk frame (skip = 1 passes the header) or a damaged header (of a message
// without frames) fails the receive; the next transfer on the same tag still works.
TEST(P2p, DamagedFrameFailsTheReceiver) {
  namespace detail = commpress::comm::detail;
  const int peer = partner();
  for (size_t chunk : {size_t{0}, size_t{2048}})
    for (size_t n : {size_t{4000}, size_t{0}}) {
      std::string what = "chunk=" + std::to_string(chunk) + " n=" + std::to_string(n);
      if (peer >= 0) {
        Bytes buf = make_bytes(Dtype::f32, 4000, 1);
        cc::Options opts{"szp", ErrorBound::absolute(1e-3), cc::Algorithm::Direct, chunk};
        if (is_sender()) {
          detail::corrupt_next_send_for_testing(true, n > 0 ? 1 : 0);
          auto r = cc::send(buf.data(), n, Dtype::f32, peer, 4, MPI_COMM_WORLD, opts);
          detail::corrupt_next_send_for_testing(false);
          EXPECT_TRUE(r.ok()) << what << ": " << r.status().to_string();
        } else {
          auto r = cc::recv(buf.data(), n, Dtype::f32, peer, 4, MPI_COMM_WORLD, opts);
          EXPECT_FALSE(r.ok()) << what;
          EXPECT_TRUE(r.status().code() == ErrorCode::checksum_mismatch ||
                      r.status().code() == ErrorCode::corrupt_frame ||
                      r.status().code() == ErrorCode::truncated)
              << what << ": " << r.status().to_string();
        }
      }
      transfer(cc::Algorithm::Direct, {"zstd-1", ErrorBound::lossless()}, Dtype::u8, 999, 0, 4);
    }
}

TEST(P2p, NonblockingRing) {
  const int me = world_rank(), p = world_size();
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  for (const Config& cfg : {Config{"none", ErrorBound::lossless()},
                            Config{"szp", ErrorBound::absolute(1e-3)},
                            Config{"szp-lossless", ErrorBound::lossless()}})
    for (size_t n : {size_t{0}, size_t{5}, size_t{6000}}) {
      std::string what = describe(cfg) + " n=" + std::to_string(n);
      Bytes mine = make_bytes(Dtype::f64, n, 10 + me), expect = make_bytes(Dtype::f64, n, 10 + left);
      Bytes got(mine.size());
      cc::Options opts{cfg.codec, cfg.bound, cc::Algorithm::Auto, 8192};
      cc::Request rr = cc::irecv(got.data(), n, Dtype::f64, left, 11, MPI_COMM_WORLD, opts);
      cc::Request sr = cc::isend(mine.data(), n, Dtype::f64, right, 11, MPI_COMM_WORLD, opts);
      EXPECT_TRUE(rr.active() && sr.active());
      while (!rr.test()) sr.test();  // progress both until the receive is in
      auto rs = sr.wait();
      auto rv = rr.wait();
      ASSERT_TRUE(rs.ok()) << what << ": " << rs.status().to_string();
      ASSERT_TRUE(rv.ok()) << what << ": " << rv.status().to_string();
      EXPECT_FALSE(rr.active());
      EXPECT_FALSE(rr.wait().ok()) << "a finished request waits no more";
      EXPECT_EQ(check_within(Dtype::f64, expect, got, rv->guaranteed_abs_bound), "") << what;
      if (cfg.bound.mode == codec::BoundMode::lossless) { EXPECT_TRUE(got == expect) << what; }
    }
}

TEST(P2p, NonblockingMismatchAndAnySource) {
  const int me = world_rank(), p = world_size();
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  cc::Options opts{"zstd-1", {}, cc::Algorithm::Direct, 1024};
  Bytes mine = make_bytes(Dtype::i32, 3000, me), got(3001 * 4);
  {  // the receiver expects one element more: refused, drained
    cc::Request sr = cc::isend(mine.data(), 3000, Dtype::i32, right, 12, MPI_COMM_WORLD, opts);
    cc::Request rr = cc::irecv(got.data(), 3001, Dtype::i32, left, 12, MPI_COMM_WORLD, opts);
    auto rv = rr.wait();
    EXPECT_EQ(rv.status().code(), ErrorCode::mismatch) << rv.status().to_string();
    EXPECT_TRUE(sr.wait().ok());
  }
  {  // any source, any tag: the chunks follow the header's actual source and tag
    cc::Request sr = cc::isend(mine.data(), 3000, Dtype::i32, right, 13, MPI_COMM_WORLD, opts);
    auto rv = cc::recv(got.data(), 3000, Dtype::i32, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                       opts);
    ASSERT_TRUE(rv.ok()) << rv.status().to_string();
    EXPECT_TRUE(Bytes(got.begin(), got.begin() + 3000 * 4) == make_bytes(Dtype::i32, 3000, left));
    EXPECT_TRUE(sr.wait().ok());
  }
  {  // destroying an unfinished request completes it; a moved-from request is empty
    std::fill(got.begin(), got.end(), std::byte{0});
    cc::Request sr = cc::isend(mine.data(), 3000, Dtype::i32, right, 14, MPI_COMM_WORLD, opts);
    {
      cc::Request rr = cc::irecv(got.data(), 3000, Dtype::i32, left, 14, MPI_COMM_WORLD, opts);
      cc::Request moved = std::move(rr);
      EXPECT_FALSE(rr.active());
      EXPECT_TRUE(moved.active());
    }
    EXPECT_TRUE(Bytes(got.begin(), got.begin() + 3000 * 4) == make_bytes(Dtype::i32, 3000, left));
    EXPECT_TRUE(sr.wait().ok());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
