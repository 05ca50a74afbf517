// The line the zero-configuration probe fits to its ping-pong (probe/link_probe.cpp), on a
// shaped link whose token bucket lets small messages through at line rate: the cost per byte
// must be the link's, not the fast small messages'.
#include <gtest/gtest.h>

#include <vector>

#include "comm/probe/link_probe.hpp"

namespace {

using commpress::model::Sample;

TEST(ProbedLinkFit, AShapedLinkIsFittedAtItsRate) {
  const double alpha = 30e-6, beta = 8e-9;  // 125 MB/s
  // The probe's sizes; up to the bucket's 32 KiB a message leaves at 10 GB/s.
  std::vector<Sample> pts;
  for (double m : {8.0, 1024.0, 16384.0, 262144.0, 1048576.0})
    pts.push_back({m, alpha + m * (m <= 32768 ? 1e-10 : beta)});
  const auto link = commpress::comm::probe::fit_probed_link(pts);
  EXPECT_NEAR(link.rendezvous.beta, beta, 0.05 * beta);
  EXPECT_NEAR(link.time(1 << 20), alpha + beta * (1 << 20), 0.05 * beta * (1 << 20));
  EXPECT_LT(link.time(8), 2 * alpha);
}

}  // namespace
