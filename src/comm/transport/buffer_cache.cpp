#include "comm/transport/buffer_cache.hpp"

#include <cstdlib>
#include <vector>

namespace commpress::comm::detail {

namespace {

// Sizes round up to this grain so that requests differing by a few bytes (frame capacities of
// neighbouring chunk lengths) share blocks.
constexpr size_t kGrain = size_t{64} << 10;

size_t rounded(size_t bytes) {
  return (bytes + kGrain - 1) / kGrain * kGrain;
}

struct Block {
  void* p;
  size_t bytes;  // rounded
};

class Cache {
 public:
  ~Cache();
  void* take(size_t bytes);
  void keep(void* p, size_t bytes);
  size_t kept() const { return kept_; }

 private:
  std::vector<Block> blocks_;  // oldest first
  size_t kept_ = 0;
};

// Trivially destructible, so still readable while other thread_local objects are destroyed
// after the cache (a buffer freed then goes straight to free()).
thread_local bool cache_gone = false;

Cache& cache() {
  thread_local Cache c;
  return c;
}

Cache::~Cache() {
  for (const Block& b : blocks_) std::free(b.p);
  cache_gone = true;
}

void* Cache::take(size_t bytes) {
  // Newest first: the buffers of the last call are the likeliest to still be in cache.
  for (size_t i = blocks_.size(); i-- > 0;) {
    if (blocks_[i].bytes != bytes) continue;
    void* p = blocks_[i].p;
    kept_ -= bytes;
    blocks_.erase(blocks_.begin() + std::ptrdiff_t(i));
    return p;
  }
  return std::malloc(bytes);
}

void Cache::keep(void* p, size_t bytes) {
  if (bytes > kKeptBytes) {
    std::free(p);
    return;
  }
  size_t drop = 0;
  while (kept_ + bytes > kKeptBytes) {
    std::free(blocks_[drop].p);
    kept_ -= blocks_[drop++].bytes;
  }
  blocks_.erase(blocks_.begin(), blocks_.begin() + std::ptrdiff_t(drop));
  try {
    blocks_.push_back({p, bytes});
  } catch (...) {  // no room to remember it: give it back instead
    std::free(p);
    return;
  }
  kept_ += bytes;
}

}  // namespace

void* take_cached_bytes(size_t bytes) {
  const size_t r = rounded(bytes);
  return cache_gone ? std::malloc(r) : cache().take(r);
}

void release_cached_bytes(void* p, size_t bytes) {
  if (!p) return;
  if (cache_gone)
    std::free(p);
  else
    cache().keep(p, rounded(bytes));
}

size_t cached_bytes_kept() {
  return cache_gone ? 0 : cache().kept();
}

}  // namespace commpress::comm::detail
