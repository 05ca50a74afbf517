// A collective's frames outlive the call in their home and come back, storage and all, to the
// next borrower; frames holding more than the cache's limit are let go instead.
#include <gtest/gtest.h>

#include "comm/transport/kept_frames.hpp"

namespace {

using namespace commpress::comm::detail;

TEST(KeptFrames, TheNextBorrowerGetsTheSameStorage) {
  std::vector<Bytes> home;
  const std::byte* storage;
  {
    std::vector<Bytes> frames;
    const KeptFrames kept(home, frames);
    reset_frames(frames, 3);
    frames[1].resize(1 << 20);
    storage = frames[1].data();
  }
  ASSERT_EQ(home.size(), 3u);
  std::vector<Bytes> again;
  const KeptFrames kept(home, again);
  EXPECT_TRUE(home.empty());  // lent out: a nested borrower would start fresh
  reset_frames(again, 2);
  EXPECT_TRUE(again[1].empty());
  EXPECT_GE(again[1].capacity(), size_t(1) << 20);
  again[1].resize(100);
  EXPECT_EQ(again[1].data(), storage);
}

TEST(KeptFrames, FramesAboveTheLimitAreNotKept) {
  std::vector<Bytes> home;
  {
    std::vector<Bytes> frames;
    const KeptFrames kept(home, frames);
    reset_frames(frames, 1);
    frames[0].reserve(kKeptBytes + 1);
  }
  EXPECT_TRUE(home.empty());
}

}  // namespace
