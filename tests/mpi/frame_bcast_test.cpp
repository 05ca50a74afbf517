// comm's frame broadcast, which carries the distributed multiply's panels and replicas: every
// rank ends with the root's bytes, whether receivers knew the length or learned it first, and
// whether the bytes went blocking or nonblocking (driven by progress()); a message beyond the
// agreed capacity fails every rank alike and moves nothing; traffic counts once, on the root.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "comm/transport/frame_bcast.hpp"
#include "mpi/mpi_harness.hpp"

namespace cd = commpress::comm::detail;
namespace cmpi = commpress::testing::mpi;

namespace {

cd::Buffer message(int root, size_t n) {
  cd::Buffer m(n);
  for (size_t i = 0; i < n; ++i) m[i] = std::byte((i * 13 + size_t(root) * 5 + 1) & 0xff);
  return m;
}

std::vector<std::byte> bytes(const cd::Buffer& b) {
  return {b.begin(), b.end()};
}

TEST(FrameBcast, EveryRankEndsWithTheRootsBytes) {
  const int p = cmpi::size(), me = cmpi::rank();
  for (int root = 0; root < p; ++root)
    for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{300000}})
      for (auto length : {cd::BcastLength::known, cd::BcastLength::sent})
        for (bool blocking : {true, false}) {
          // Receivers that learn the length start from a stale buffer of another size.
          cd::Buffer b = me == root ? message(root, n)
                         : length == cd::BcastLength::known
                             ? cd::Buffer(n, std::byte{0xee})
                             : cd::Buffer(n / 2 + 7, std::byte{0xee});
          cd::Traffic t;
          cd::PendingBcast x;
          EXPECT_TRUE(x.start(b, length, n, 3 * n, root, MPI_COMM_WORLD, blocking, t).ok());
          EXPECT_TRUE(x.progress().ok());
          EXPECT_TRUE(x.finish().ok());
          EXPECT_EQ(bytes(b), bytes(message(root, n))) << "root " << root << ", " << n << " bytes";
          const bool counts = me == root && p > 1;
          const size_t word = length == cd::BcastLength::sent ? sizeof(uint64_t) : 0;
          EXPECT_EQ(t.bytes_sent, counts ? n + word : 0) << "root " << root;
          EXPECT_EQ(t.raw_bytes, counts ? 3 * n : 0) << "root " << root;
        }
}

TEST(FrameBcast, AMessageBeyondTheCapacityFailsEveryRankAndMovesNothing) {
  const int p = cmpi::size(), me = cmpi::rank();
  cd::Buffer b = me == 0 ? message(0, 100) : cd::Buffer(64, std::byte{0xee});
  cd::Traffic t;
  const auto st = cd::bcast_frame(b, cd::BcastLength::sent, 64, 100, 0, MPI_COMM_WORLD, t);
  if (p == 1) {
    EXPECT_TRUE(st.ok());  // nothing travels on one rank
  } else {
    EXPECT_FALSE(st.ok());
    if (me != 0) EXPECT_EQ(bytes(b), std::vector<std::byte>(64, std::byte{0xee}));
  }
  // The communicator is still in step: the next broadcast works everywhere.
  cd::Buffer again = me == 0 ? message(0, 40) : cd::Buffer();
  EXPECT_TRUE(cd::bcast_frame(again, cd::BcastLength::sent, 64, 40, 0, MPI_COMM_WORLD, t).ok());
  EXPECT_EQ(bytes(again), bytes(message(0, 40)));
}

}  // namespace
