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

TEST(ReduceScatterBlock, Refusals) { refusals(Which::reduce_scatter); }

TEST(ReduceScatterBlock, MismatchedArgumentsFailEveryRank) { mismatches(Which::reduce_scatter); }

TEST(ReduceScatterBlock, CorruptFrameFailsEveryRank) { corrupt_link(Which::reduce_scatter); }

}  // namespace
