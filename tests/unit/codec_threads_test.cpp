// The codec threads an operation allows itself: the rank's share of the cores when several
// unbound ranks share a node and nobody chose, OpenMP's own setting otherwise.
#include <gtest/gtest.h>

#include "comm/session/codec_threads.hpp"

namespace {

using commpress::comm::detail::thread_share;

TEST(CodecThreads, UnboundRanksShareTheCores) {
  EXPECT_EQ(thread_share(false, 4, 2, 2), 1);  // 4 ranks on 2 cores: one thread each
  EXPECT_EQ(thread_share(false, 2, 2, 2), 1);
  EXPECT_EQ(thread_share(false, 4, 16, 16), 4);
  EXPECT_EQ(thread_share(false, 3, 16, 16), 5);  // rounded down
}

TEST(CodecThreads, OpenMpDecidesWhereItAlreadyKnowsBetter) {
  EXPECT_EQ(thread_share(true, 4, 2, 2), 0);     // OMP_NUM_THREADS set: the user's choice
  EXPECT_EQ(thread_share(false, 1, 16, 16), 0);  // alone on the node
  EXPECT_EQ(thread_share(false, 0, 16, 16), 0);  // the launcher did not say
  EXPECT_EQ(thread_share(false, 4, 4, 16), 0);   // bound by the launcher: OpenMP follows it
  EXPECT_EQ(thread_share(false, 4, 0, 16), 0);
}

}  // namespace
