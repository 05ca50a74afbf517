// 1-D Lorenzo prediction inside one block: each value is predicted by its left neighbour,
// the first by zero, so every block decodes on its own. Arithmetic wraps (done in the
// unsigned type), which makes forward and inverse exact inverses for any input bits.
#pragma once

#include <cstddef>
#include <type_traits>

#include "codec/lossy/szp/block_header.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::szp {

struct LorenzoPredictor {
  // r[0] = q[0], r[i] = q[i] - q[i-1]
  template <class Int>
  COMMPRESS_HD static void forward(const Int* q, Int* r) {
    using U = std::make_unsigned_t<Int>;
    r[0] = q[0];
    for (size_t i = 1; i < kBlockValues; ++i) r[i] = Int(U(q[i]) - U(q[i - 1]));
  }

  // q[i] = r[0] + ... + r[i]
  template <class Int>
  COMMPRESS_HD static void inverse(const Int* r, Int* q) {
    using U = std::make_unsigned_t<Int>;
    U acc = 0;
    for (size_t i = 0; i < kBlockValues; ++i) q[i] = Int(acc += U(r[i]));
  }
};

}  // namespace commpress::codec::szp
