// commpress::comm::reduce with every algorithm at any rank count and several roots: lossy
// sums (and min/max) within the reported bound of the exact result, lossless results equal
// to MPI_Reduce (bit for bit where the order does not matter), in place at the root,
// refusals, mismatched arguments (root included) and a damaged link failing every rank.
#include "mpi/reduce_test_support.hpp"

using namespace commpress::testing::reduce;

namespace {

const std::vector<Size> kSizes = {{0, 0}, {1, 0}, {7, 0}, {1000, 256}, {30011, 8192}};

TEST(Reduce, LossySumEveryAlgorithm) { lossy_sums(Which::reduce, kSizes); }

TEST(Reduce, LossyMinMax) { lossy_min_max(Which::reduce, kSizes); }

TEST(Reduce, LosslessEveryOpEqualsMpi) { lossless_every_op(Which::reduce, kSizes); }

TEST(Reduce, EveryRoot) {
  for (int root : roots())
    for (Variant v : every_variant())
      check_case({Which::reduce, v.alg, {"szp", ErrorBound::relative(1e-3)}, Dtype::f32, Op::sum,
                  777, 512, v.pretend, root});
}

TEST(Reduce, InPlaceAtRoot) {
  for (int root : roots())
    for (Variant v : every_variant()) {
      if (v.alg == Algorithm::Auto) continue;
      Case c{Which::reduce, v.alg, {"szp", ErrorBound::absolute(1e-5)}, Dtype::f64, Op::sum, 1001,
             1024, v.pretend, root, world_rank() == root};
      check_case(c);
    }
}

TEST(Reduce, MismatchedRootFailsEveryRank) {
  if (world_size() == 1) GTEST_SKIP() << "one rank cannot disagree";
  Case c{Which::reduce, Algorithm::DocRing, {"szp", ErrorBound::absolute(1e-2)}, Dtype::f32,
         Op::sum, 100};
  c.root = world_rank() == 0 ? 1 : 0;
  check_refused(c, commpress::ErrorCode::mismatch);
}

TEST(Reduce, Refusals) { refusals(Which::reduce); }

TEST(Reduce, MismatchedArgumentsFailEveryRank) { mismatches(Which::reduce); }

TEST(Reduce, CorruptFrameFailsEveryRank) { corrupt_link(Which::reduce); }

}  // namespace
