// 1-D Lorenzo prediction of order 1 or 2 whose state runs on from block to block inside an
// szp-e chunk (docs/format/szp-e.md): order 1 predicts q[i-1], order 2 extrapolates the line
// through q[i-2] and q[i-1] (2 q[i-1] - q[i-2]). Carrying the state means a block that
// merely continues its left neighbour has all-zero residuals, where szp (which restarts in
// every block) pays for its first value. Arithmetic wraps in the unsigned type, so forward
// and inverse are exact inverses for any bits.
#pragma once

#include <cstddef>
#include <type_traits>

#include "codec/lossy/szp/block_header.hpp"

namespace commpress::codec::szp {

template <class Int>
struct ChainState {
  Int q1 = 0;  // the previous value's integer
  Int q2 = 0;  // the one before it
};

struct ChainedLorenzo {
  // r[i] = q[i] - prediction; lanes valid..31 get r = 0 (the padding of a last block).
  template <class Int>
  static void forward(const Int* q, size_t valid, int order, const ChainState<Int>& s, Int* r) {
    using U = std::make_unsigned_t<Int>;
    U ext[kBlockValues + 2];
    ext[0] = U(s.q2);
    ext[1] = U(s.q1);
    for (size_t i = 0; i < kBlockValues; ++i) ext[i + 2] = U(q[i]);
    if (order == 1) {
      for (size_t i = 0; i < kBlockValues; ++i) r[i] = Int(ext[i + 2] - ext[i + 1]);
    } else {
      for (size_t i = 0; i < kBlockValues; ++i)
        r[i] = Int(ext[i + 2] - U(2) * ext[i + 1] + ext[i]);
    }
    for (size_t i = valid; i < kBlockValues; ++i) r[i] = 0;
  }

  // The state after a block whose 32 integers are q.
  template <class Int>
  static void advance(const Int* q, ChainState<Int>& s) {
    s.q1 = q[kBlockValues - 1];
    s.q2 = q[kBlockValues - 2];
  }

  // q[i] = prediction + r[i], lane by lane; leaves the state after the block in s.
  template <class Int>
  static void inverse(const Int* r, int order, ChainState<Int>& s, Int* q) {
    using U = std::make_unsigned_t<Int>;
    U p1 = U(s.q1);
    if (order == 1) {
      for (size_t i = 0; i < kBlockValues; ++i) q[i] = Int(p1 += U(r[i]));
    } else {
      U d = p1 - U(s.q2);
      for (size_t i = 0; i < kBlockValues; ++i) {
        d += U(r[i]);
        q[i] = Int(p1 += d);
      }
    }
    advance(q, s);
  }
};

}  // namespace commpress::codec::szp
