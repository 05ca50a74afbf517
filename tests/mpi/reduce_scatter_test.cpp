// commpress::comm::reduce_scatter_block with every algorithm at any rank count: lossy sums
// (and min/max) within the reported bound of the exact result, lossless results equal to
// MPI_Reduce_scatter_block (bit for bit where the order does not matter), in place, refusals,
// mismatched arguments and a damaged link failing every rank alike.
#include "mpi/reduce_test_support.hpp"

using namespace commpress::testing::reduce;

namespace {

// count_per_rank: the vectors are p times longer.
const std::vector<Size> kSizes = {{0, 0}, {1, 0}, {7, 0}, {333, 256}, {3001, 4096}};

TEST(ReduceScatterBlock, LossySumEveryAlgorithm) { lossy_sums(Which::reduce_scatter, kSizes); }

TEST(ReduceScatterBlock, LossyMinMax) { lossy_min_max(Which::reduce_scatter, kSizes); }

TEST(ReduceScatterBlock, LosslessEveryOpEqualsMpi) {
  lossless_every_op(Which::reduce_scatter, kSizes);
}

TEST(ReduceScatterBlock, InPlace) {
  for (Variant v : every_variant()) {
    if (v.alg == Algorithm::Auto) continue;
    check_case({Which::reduce_scatter, v.alg, {"szp", ErrorBound::relative(1e-4)}, Dtype::f64,
                Op::sum, 501, 1024, v.pretend, 0, true});
  }
}

TEST(ReduceScatterBlock, RabenseifnerAllCompressedOrAllRaw) {
  for (size_t be : {size_t{0}, size_t{1} << 40}) {
    BreakEven scope(be);
    for (Size s : kSizes)
      check_case({Which::reduce_scatter, Algorithm::Rabenseifner,
                  {"szp", ErrorBound::absolute(1e-2)}, Dtype::f32, Op::sum, s.n, s.chunk_bytes});
  }
}

// The uncompressed ring commpress runs in place of MPI's own: every op and dtype against MPI
// (pieces smaller than a block with the 256 B and 4 KiB chunk sizes), a lossy codec asked
// for but not used (the rounding bound still within the request), and in place.
TEST(ReduceScatterBlock, PlainRingEqualsMpi) {
  for (Op op : {Op::sum, Op::prod, Op::min, Op::max})
    for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::i32, Dtype::i64})
      for (Size s : kSizes)
        check_case({Which::reduce_scatter, Algorithm::PlainRing, lossless_config_for(d), d, op, s.n,
                    s.chunk_bytes});
  for (Dtype d : {Dtype::f32, Dtype::f64})
    for (Size s : kSizes)
      check_case({Which::reduce_scatter, Algorithm::PlainRing, lossy_configs_for(d)[1], d, Op::sum,
                  s.n, s.chunk_bytes});
  check_case({Which::reduce_scatter,
              Algorithm::PlainRing,
              {"none", ErrorBound::lossless()},
              Dtype::f64,
              Op::sum,
              501,
              1024,
              0,
              0,
              true});
}

TEST(ReduceScatterBlock, Refusals) { refusals(Which::reduce_scatter); }

TEST(ReduceScatterBlock, MismatchedArgumentsFailEveryRank) { mismatches(Which::reduce_scatter); }

TEST(ReduceScatterBlock, CorruptFrameFailsEveryRank) { corrupt_link(Which::reduce_scatter); }

}  // namespace
