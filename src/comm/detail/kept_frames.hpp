// Frames a collective writes on every call, kept on the thread for the next one. Encoders
// write a frame whole into its vector, so a fresh vector faults in every page of it; a kept
// one already has them (the receive buffers get the same from buffer_cache.hpp). A nested
// borrow of the same home, should there ever be one, finds it empty and starts fresh.
#pragma once

#include <utility>
#include <vector>

#include "comm/detail/reduce_context.hpp"

namespace commpress::comm::detail {

class KeptFrames {
 public:
  // home: a thread_local vector owned by the borrowing function.
  explicit KeptFrames(std::vector<Bytes>& home) : home_(home) { frames.swap(home_); }
  ~KeptFrames() { frames.swap(home_); }
  KeptFrames(const KeptFrames&) = delete;
  KeptFrames& operator=(const KeptFrames&) = delete;

  // At least n frames, all empty (their storage kept).
  std::vector<Bytes>& at_least(size_t n) {
    if (frames.size() < n) frames.resize(n);
    for (Bytes& f : frames) f.clear();
    return frames;
  }

  std::vector<Bytes> frames;

 private:
  std::vector<Bytes>& home_;
};

}  // namespace commpress::comm::detail
