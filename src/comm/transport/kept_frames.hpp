// Frames a collective writes on every call, kept on the thread for the next one. Encoders
// write a frame whole into its vector, so a fresh vector faults in every page of it; a kept
// one already has them (the receive buffers get the same from buffer_cache.hpp).
#pragma once

#include <utility>
#include <vector>

#include "comm/algorithms/parts/reduce_context.hpp"
#include "comm/transport/buffer_cache.hpp"

namespace commpress::comm::detail {

// Lends `into` the frames kept in `home` (a thread_local of the borrowing function) for its
// lifetime, then keeps them there again unless they hold more than kKeptBytes. A nested
// borrow of the same home, should there ever be one, finds it empty and starts fresh.
class KeptFrames {
 public:
  KeptFrames(std::vector<Bytes>& home, std::vector<Bytes>& into) : home_(home), into_(into) {
    into_.swap(home_);
  }
  ~KeptFrames() {
    size_t held = 0;
    for (const Bytes& f : into_) held += f.capacity();
    if (held <= kKeptBytes) into_.swap(home_);
  }
  KeptFrames(const KeptFrames&) = delete;
  KeptFrames& operator=(const KeptFrames&) = delete;

 private:
  std::vector<Bytes>& home_;
  std::vector<Bytes>& into_;
};

// n empty frames, keeping the storage of those already there.
inline void reset_frames(std::vector<Bytes>& frames, size_t n) {
  frames.resize(n);
  for (Bytes& f : frames) f.clear();
}

}  // namespace commpress::comm::detail
