// Ranks that call different collectives on one communicator: the last rank calls another
// operation than the rest, for every ordered pair, through the C++ and the C API, exact and
// lossy. Every rank must fail with the same error (code and message) naming the operation;
// none may succeed or hang (the ctest timeout catches a hang). One rank alone just runs each
// collective.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "mpi/collective_calls.hpp"
#include "mpi/comm_test_support.hpp"

namespace commpress::testing::comm {
namespace {

constexpr size_t kCount = 1000;

// Buffers large enough for any operation's role at this communicator size.
struct Buffers {
  Bytes send, recv;
  explicit Buffers(int ranks)
      : send(make_bytes(Dtype::f32, kCount * size_t(ranks), 7)), recv(kCount * size_t(ranks) * 4) {}
  CallArgs args(const cc::Options& opts) {
    return {send.data(), recv.data(), kCount, Dtype::f32, 0, MPI_COMM_WORLD, opts};
  }
};

// Collective: the same text on every rank.
bool same_text_everywhere(const std::string& text) {
  const uint64_t h = std::hash<std::string>{}(text);
  uint64_t range[2] = {h, ~h};
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  return range[0] == ~range[1];
}

// Each pair runs twice: on MPI_COMM_WORLD, used before, and as the first call on a fresh
// duplicate (commpress's own set-up of a communicator happens inside the failing call).
void expect_pairs_fail(const std::vector<Collective>& ops) {
  const int p = world_size(), me = world_rank();
  Buffers b(p);
  for (const bool fresh : {false, true})
    for (const cc::Options& opts : option_sets())
      for (size_t i = 0; i < ops.size(); ++i)
        for (size_t j = 0; j < ops.size(); ++j) {
          if (i == j) continue;
          const Collective& mine = me == p - 1 ? ops[j] : ops[i];
          const std::string what = ops[i].name + " against " + ops[j].name + " (" +
                                   describe_options(opts) + (fresh ? ", fresh" : "") + ")";
          CallArgs args = b.args(opts);
          if (fresh) MPI_Comm_dup(MPI_COMM_WORLD, &args.comm);
          const Status st = mine.call(args);
          if (fresh) MPI_Comm_free(&args.comm);
          expect_failed_alike(st, what, ErrorCode::mismatch);
          EXPECT_NE(st.message().find("ranks disagree on operation"), std::string::npos)
              << what << ": " << st.to_string();
          EXPECT_TRUE(same_text_everywhere(st.message()))
              << what << ": messages differ between ranks; this rank's: " << st.to_string();
        }
}

TEST(OperationAgreement, DifferentCollectivesFailEveryRankAlike) {
  if (world_size() == 1) GTEST_SKIP() << "one rank has no one to disagree with";
  expect_pairs_fail(cpp_collectives());
}

TEST(OperationAgreement, DifferentCollectivesFailEveryRankAlikeThroughC) {
  if (world_size() == 1) GTEST_SKIP() << "one rank has no one to disagree with";
  expect_pairs_fail(c_collectives());
}

TEST(OperationAgreement, SameCollectiveEverywhereSucceeds) {
  Buffers b(world_size());
  for (const cc::Options& opts : option_sets())
    for (const Collective& op : all_collectives()) {
      const Status st = op.call(b.args(opts));
      EXPECT_TRUE(st.ok()) << op.name << " (" << describe_options(opts) << "): " << st.to_string();
    }
}

}  // namespace
}  // namespace commpress::testing::comm
