// Large message buffers come back to the thread that frees them and serve the next request of
// the same rounded size; small ones and the excess over the thread's limit go back to malloc.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "comm/transport/buffer.hpp"
#include "comm/transport/buffer_cache.hpp"

namespace {

using namespace commpress::comm::detail;

TEST(BufferCache, AFreedBufferServesTheNextOfItsSize) {
  const size_t before = cached_bytes_kept();
  const std::byte* first;
  {
    Buffer b(1 << 20);
    first = b.data();
    std::memset(b.data(), 1, b.size());
  }
  EXPECT_GE(cached_bytes_kept(), before + (1 << 20));
  Buffer again(1 << 20);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(cached_bytes_kept(), before);
  // Sizes a few bytes apart round to the same block.
  const std::byte* p = again.data();
  again = Buffer();
  Buffer near((1 << 20) - 100);
  EXPECT_EQ(near.data(), p);
}

TEST(BufferCache, SmallBuffersAreNotKept) {
  const size_t before = cached_bytes_kept();
  { Buffer b(kCachedFrom - 1); }
  EXPECT_EQ(cached_bytes_kept(), before);
}

TEST(BufferCache, KeepsAtMostTheLimitAndDropsTheOldestFirst) {
  auto cycle = [](size_t bytes) { release_cached_bytes(take_cached_bytes(bytes), bytes); };
  cycle(kKeptBytes);  // fills the cache alone: whatever was kept before is dropped
  EXPECT_EQ(cached_bytes_kept(), kKeptBytes);
  const size_t a = kKeptBytes / 2, b = kKeptBytes / 4, c = kKeptBytes / 2 + kCachedFrom;
  void* pa = take_cached_bytes(a);
  void* pb = take_cached_bytes(b);
  release_cached_bytes(pa, a);  // drops the full-size block
  release_cached_bytes(pb, b);
  EXPECT_EQ(cached_bytes_kept(), a + b);
  release_cached_bytes(take_cached_bytes(c), c);  // no room for c: a, the oldest, goes
  EXPECT_EQ(cached_bytes_kept(), b + c);
  void* again = take_cached_bytes(b);
  EXPECT_EQ(again, pb);
  EXPECT_EQ(cached_bytes_kept(), c);
  void* fresh = take_cached_bytes(a);  // a is gone: malloc's, and c stays kept
  EXPECT_EQ(cached_bytes_kept(), c);
  release_cached_bytes(fresh, a);
  release_cached_bytes(again, b);
  release_cached_bytes(take_cached_bytes(kKeptBytes + 1), kKeptBytes + 1);  // never kept
  EXPECT_LE(cached_bytes_kept(), kKeptBytes);
}

TEST(BufferCache, EachThreadKeepsItsOwn) {
  const size_t mine = cached_bytes_kept();
  size_t other = 0;
  std::thread t([&] {
    { Buffer b(1 << 20); }
    other = cached_bytes_kept();
  });
  t.join();
  EXPECT_GE(other, size_t(1) << 20);     // kept by the thread that freed it
  EXPECT_EQ(cached_bytes_kept(), mine);  // not by this one
}

}  // namespace
