// Counts no buffer can have ((size_t)-1, SIZE_MAX/2, 2^62, 2^61) through every collective
// (C++ and C API) and point-to-point: the overflow error on every rank, before any element
// is read (the buffers passed hold a few elements only). One rank alone passing such a count
// fails every rank alike. Then the same communicator still works.
#include <gtest/gtest.h>

#include <cstdint>

#include "mpi/collective_calls.hpp"
#include "mpi/comm_test_support.hpp"

namespace commpress::testing::comm {
namespace {

constexpr size_t kHuge[] = {SIZE_MAX, SIZE_MAX / 2, size_t{1} << 62, size_t{1} << 61};
constexpr size_t kSmall = 16;

struct Buffers {
  Bytes send = Bytes(kSmall * 8 * size_t(world_size()));
  Bytes recv = Bytes(kSmall * 8 * size_t(world_size()));
  CallArgs args(size_t count, Dtype d, const cc::Options& opts) {
    return {send.data(), recv.data(), count, d, world_size() - 1, MPI_COMM_WORLD, opts};
  }
};

std::string describe_call(const Collective& op, size_t count, Dtype d) {
  return op.name + " count " + std::to_string(count) + " " + codec::dtype_name(d);
}

TEST(CountOverflow, EveryCollectiveRefusesOnEveryRank) {
  Buffers b;
  for (const cc::Options& opts : option_sets())
    for (const Collective& op : all_collectives())
      for (Dtype d : {Dtype::f32, Dtype::f64, Dtype::u8})
        for (size_t count : kHuge) {
          const std::string what =
              describe_call(op, count, d) + " (" + describe_options(opts) + ")";
          expect_failed_alike(op.call(b.args(count, d, opts)), what, ErrorCode::overflow);
        }
}

TEST(CountOverflow, OneRankAloneFailsEveryRank) {
  if (world_size() == 1) GTEST_SKIP() << "needs a second rank to differ from";
  Buffers b;
  const bool odd_one = world_rank() == world_size() / 2;
  for (const Collective& op : all_collectives())
    for (size_t count : kHuge) {
      const std::string what = describe_call(op, count, Dtype::f32) + " on one rank";
      const Status st = op.call(b.args(odd_one ? count : kSmall, Dtype::f32, {}));
      expect_failed_alike(st, what, ErrorCode::mismatch);
      EXPECT_NE(st.message().find("count"), std::string::npos) << what << ": " << st.to_string();
    }
  for (const Collective& op : all_collectives()) {
    const Status st = op.call(b.args(kSmall, Dtype::f32, {}));
    EXPECT_TRUE(st.ok()) << op.name << " after the refusals: " << st.to_string();
  }
}

TEST(CountOverflow, PointToPointRefusesAtBothEnds) {
  if (world_size() == 1) GTEST_SKIP() << "needs a sender and a receiver";
  Buffers b;
  const int me = world_rank();
  for (size_t count : kHuge) {
    if (me == 0) {
      auto r = cc::send(b.send.data(), count, Dtype::f32, 1, 5, MPI_COMM_WORLD);
      EXPECT_EQ(r.status().code(), ErrorCode::overflow) << count << ": " << r.status().to_string();
    } else if (me == 1) {
      auto r = cc::recv(b.recv.data(), count, Dtype::f32, 0, 5, MPI_COMM_WORLD);
      EXPECT_EQ(r.status().code(), ErrorCode::overflow) << count << ": " << r.status().to_string();
    }
  }
}

}  // namespace
}  // namespace commpress::testing::comm
