// The nonblocking exchange the ring algorithms are built on: driven by progress() while the
// caller computes, it still delivers every message whole, with its length, whether progress()
// or finish() saw it complete; empty messages and absent peers included.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "comm/transport/frame_transport.hpp"
#include "mpi/mpi_harness.hpp"

namespace cmpi = commpress::testing::mpi;
using commpress::comm::detail::Buffer;
using commpress::comm::detail::PendingExchange;
using commpress::comm::detail::Traffic;

namespace {

std::vector<std::byte> message(int from, size_t n) {
  std::vector<std::byte> m(n);
  for (size_t i = 0; i < n; ++i) m[i] = std::byte((i * 31 + size_t(from) * 7) & 0xff);
  return m;
}

// Sends n bytes to the right neighbour and receives the left one's, driving the exchange
// for `drive` before finishing it.
void ring_exchange(size_t n, std::chrono::milliseconds drive) {
  const int p = cmpi::size(), r = cmpi::rank();
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  const std::vector<std::byte> out = message(r, n);
  Buffer in;
  Traffic traffic;
  PendingExchange x;
  ASSERT_TRUE(x.start(out, n, right, in, n + 64, left, 0x7a1, MPI_COMM_WORLD, traffic).ok());
  const auto until = std::chrono::steady_clock::now() + drive;
  while (std::chrono::steady_clock::now() < until) EXPECT_TRUE(x.progress().ok());
  EXPECT_TRUE(x.finish().ok());
  EXPECT_EQ(std::vector<std::byte>(in.begin(), in.end()), message(left, n))
      << n << " bytes, driven for " << drive.count() << " ms";
  EXPECT_EQ(traffic.bytes_sent, n);
}

TEST(PendingExchange, MessagesArriveWholeWhoeverCompletesThem) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20})
    for (auto drive : {std::chrono::milliseconds(0), std::chrono::milliseconds(50)})
      ring_exchange(n, drive);
}

TEST(PendingExchange, AbsentPeersLeaveNothing) {
  Buffer in(5, std::byte{9});
  Traffic traffic;
  PendingExchange x;
  ASSERT_TRUE(x.start({}, 0, MPI_PROC_NULL, in, 100, MPI_PROC_NULL, 0x7a2, MPI_COMM_WORLD,
                      traffic).ok());
  EXPECT_TRUE(x.progress().ok());
  EXPECT_TRUE(x.finish().ok());
  EXPECT_TRUE(in.empty());
}

}  // namespace
