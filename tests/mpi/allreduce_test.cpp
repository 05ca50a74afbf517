// commpress::comm::allreduce with every algorithm at any rank count: lossy sums (and min/max)
// within the reported bound of the exact result and identical on every rank, lossless results
// equal to MPI_Allreduce (bit for bit where the order does not matter), in place, many-chunk
// pipelines, Rabenseifner all-compressed and all-raw, refusals, mismatched arguments and a
// damaged link failing every rank alike.
#include <cerrno>
#include <cmath>
#include <cstring>

#include "comm/session/environment.hpp"
#include "comm/transport/shared_segment.hpp"
#include "commpress/model.hpp"
#include "mpi/reduce_test_support.hpp"

using namespace commpress::testing::reduce;

namespace {

const std::vector<Size> kSizes = {{0, 0}, {1, 0}, {7, 0}, {1000, 256}, {30011, 8192}};

TEST(Allreduce, LossySumEveryAlgorithm) { lossy_sums(Which::allreduce, kSizes); }

TEST(Allreduce, LossyMinMax) { lossy_min_max(Which::allreduce, kSizes); }

TEST(Allreduce, LosslessEveryOpEqualsMpi) { lossless_every_op(Which::allreduce, kSizes); }

TEST(Allreduce, InPlace) {
  for (Variant v : every_variant()) {
    if (v.alg == Algorithm::Auto) continue;
    check_case({Which::allreduce, v.alg, {"szp", ErrorBound::relative(1e-4)}, Dtype::f64, Op::sum,
                1001, 1024, v.pretend, 0, true});
    if (runs(v.alg, {"zstd-1", ErrorBound::lossless()}, Op::max))
      check_case({Which::allreduce, v.alg, {"zstd-1", ErrorBound::lossless()}, Dtype::f32, Op::max,
                  1001, 0, v.pretend, 0, true});
  }
}

TEST(Allreduce, SharedWindowEveryOpAndDtype) {
  // The last size outgrows the segment's first 2 MiB at every rank count; the sizes after it
  // reuse the grown segment.
  std::vector<Size> sizes = kSizes;
  sizes.push_back({600000, 0});
  sizes.push_back({1000, 0});
  for (Op op : {Op::sum, Op::prod, Op::min, Op::max})
    for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::i32, Dtype::i64})
      for (Size s : sizes)
        for (bool in_place : {false, true})
          check_case({Which::allreduce, Algorithm::SharedWindow, lossless_config_for(d), d, op, s.n,
                      0, 0, 0, in_place});
  // A lossy request runs uncompressed all the same: the bound it reports is the rounding's.
  check_case({Which::allreduce,
              Algorithm::SharedWindow,
              {"szp", ErrorBound::relative(1e-4)},
              Dtype::f32,
              Op::sum,
              30011});
}

TEST(Allreduce, SharedWindowSumsInRankOrder) {
  // Every element is reduced once, over ranks 0..p-1 in order: bit for bit the sequential sum.
  const size_t n = 20000;
  auto input = [](int rank, size_t i) { return float(std::sin(0.37 * double(i) * (rank + 1))); };
  std::vector<float> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = input(world_rank(), i);
  auto r = cc::allreduce(in.data(), out.data(), n, Dtype::f32, Op::sum, MPI_COMM_WORLD,
                         {"none", ErrorBound::lossless(), Algorithm::SharedWindow});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->algorithm, Algorithm::SharedWindow);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    float sum = input(0, i);
    for (int q = 1; q < world_size(); ++q) sum += input(q, i);
    wrong += std::memcmp(&sum, &out[i], sizeof sum) != 0;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(Allreduce, RabenseifnerAllCompressedOrAllRaw) {
  for (size_t be : {size_t{0}, size_t{1} << 40}) {
    BreakEven scope(be);
    for (Size s : kSizes)
      for (Op op : {Op::sum, Op::max})
        check_case({Which::allreduce, Algorithm::Rabenseifner, {"szp", ErrorBound::relative(1e-3)},
                    Dtype::f32, op, s.n, s.chunk_bytes});
  }
}

TEST(Allreduce, RawTransfersPromiseOnlyRounding) {
  // Everything below the break-even size travels raw: no quantization enters the bound.
  BreakEven scope(size_t{1} << 40);
  Case c{Which::allreduce, Algorithm::Rabenseifner, {"szp", ErrorBound::absolute(1e-2)},
         Dtype::f64, Op::max, 5000};
  std::vector<Bytes> in;
  Bytes mine = input_of(c, world_rank()), out(5000 * 8);
  auto r = call(c, mine.data(), out.data());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->guaranteed_abs_bound, 0.0);
  EXPECT_EQ(r->bytes_sent, r->raw_bytes);
}

TEST(Allreduce, CompressesWhenLossy) {
  if (world_size() == 1) GTEST_SKIP() << "nothing is sent";
  for (Algorithm a : {Algorithm::DocRing, Algorithm::HomomorphicRing, Algorithm::FusedRing,
                      Algorithm::HomomorphicRecursiveDoubling}) {
    Case c{Which::allreduce, a, {"szp", ErrorBound::relative(1e-3)}, Dtype::f64, Op::sum, 30011};
    Bytes mine = input_of(c, world_rank()), out(c.n * 8);
    auto r = call(c, mine.data(), out.data());
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_LT(r->bytes_sent * 2, r->raw_bytes) << label(c) << ": ratio " << r->ratio();
    EXPECT_EQ(r->chunk_bytes, commpress::model::kDefaultChunkBytes) << label(c);
  }
}

TEST(Allreduce, ReportsTheChunkItRanWith) {
  Case c{Which::allreduce, Algorithm::FusedRing, {"szp", ErrorBound::relative(1e-3)}, Dtype::f32,
         Op::sum, 30011, 8192};
  Bytes mine = input_of(c, world_rank()), out(c.n * 4);
  auto r = call(c, mine.data(), out.data());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->chunk_bytes, 8192u);
  c.alg = Algorithm::Mpi;
  r = call(c, mine.data(), out.data());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->chunk_bytes, 0u);  // MPI's own operation has no chunks of commpress's
}

TEST(Allreduce, PretendNodesFromTheEnvironment) {
  // Every rank sets the same value; the option, when given, wins.
  setenv("COMMPRESS_PRETEND_RANKS_PER_NODE", "2", 1);
  commpress::comm::detail::reread_environment_for_testing();  // read once per process
  for (Op op : {Op::sum, Op::min})
    check_case({Which::allreduce, Algorithm::Hierarchical, {"szp", ErrorBound::relative(1e-3)},
                Dtype::f32, op, 3001, 2048});
  check_case({Which::allreduce, Algorithm::Hierarchical, {"szp", ErrorBound::relative(1e-3)},
              Dtype::f32, Op::sum, 3001, 2048, 3});
  unsetenv("COMMPRESS_PRETEND_RANKS_PER_NODE");
  commpress::comm::detail::reread_environment_for_testing();
}

TEST(Allreduce, SharedMemoryRefusedFailsEveryRank) {
  // A fresh communicator has no segment yet, so its first call makes one: refused at rank 0
  // (creating it, as a full /dev/shm would) or at the last rank (mapping it).
  for (int failing : {0, world_size() - 1}) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const cc::Options window{"none", ErrorBound::lossless(), Algorithm::SharedWindow};
    std::vector<float> in(1000, 1.0f), out(1000);
    if (world_rank() == failing) commpress::comm::detail::fail_next_segment_for_testing(ENOSPC);
    auto r = cc::allreduce(in.data(), out.data(), in.size(), Dtype::f32, Op::sum, comm, window);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), commpress::ErrorCode::io);
    EXPECT_NE(r.status().message().find(std::strerror(ENOSPC)), std::string::npos)
        << r.status().message();
    commpress::comm::detail::fail_next_segment_for_testing(0);
    r = cc::allreduce(in.data(), out.data(), in.size(), Dtype::f32, Op::sum, comm, window);
    ASSERT_TRUE(r.ok()) << r.status().to_string();  // the next call makes the segment
    EXPECT_EQ(out[999], float(world_size()));
    MPI_Comm_free(&comm);
  }
}

TEST(Allreduce, Refusals) { refusals(Which::allreduce); }

TEST(Allreduce, MismatchedArgumentsFailEveryRank) { mismatches(Which::allreduce); }

TEST(Allreduce, CorruptFrameFailsEveryRank) { corrupt_link(Which::allreduce); }

}  // namespace
