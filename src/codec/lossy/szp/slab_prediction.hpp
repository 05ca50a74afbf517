// Encoding and decoding one slab of a shaped szp-e payload with a predictor that visits the
// slab's values in its own order (interpolation_nd.hpp): the code of each
// value is k = round((x - P) / step) and the value comes back as P + k step, P computed from
// values already decoded. A block holding a value the bound refuses travels raw, and its
// exact values are what predictions read; since a raw block can change values that earlier
// predictions already read, the encoder repeats the slab with those blocks raw until no new
// block fails (a few passes at most; after kMaxPasses the whole slab is raw).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/interpolation_nd.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"

namespace commpress::codec::szp {

// The predictor byte of a shaped payload's prefix (one so far; the byte leaves room).
enum class Predictor : uint8_t { interpolation = 1 };

inline constexpr int kMaxPasses = 4;

// The slab height the encoder writes: about 2^20 values or more, and a whole number of
// 32-value blocks, so no block straddles two slabs and slabs are encoded in parallel.
inline size_t encoder_slab(size_t nz, size_t plane) {
  constexpr size_t kTarget = size_t{1} << 20;
  size_t slab = std::max<size_t>(1, (kTarget + plane - 1) / plane);
  const size_t align = kBlockValues / std::gcd(plane, kBlockValues);
  slab = (slab + align - 1) / align * align;
  return std::min(slab, nz);
}

template <class T, class F>
void visit(Predictor, const Box& slab, F f) {
  interpolation_visit<T>(slab, f);
}

// Encodes the planes [z0, z1) of the box b: codes into k and fail[blk] for each of their
// blocks (of the whole box; the slab starts on a block boundary, or is the only one).
// rec: scratch for the slab's reconstructed values; bad: scratch of the slab's blocks.
template <class T>
void encode_slab(Predictor p, const T* x, const Box& b, size_t z0, size_t z1,
                 const LinearQuantizer<T>& qz, typename BlockTraits<T>::Int* k, uint8_t* fail,
                 std::vector<T>& rec, std::vector<uint8_t>& bad) {
  using Int = typename BlockTraits<T>::Int;
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane(), len = slab.count();
  const size_t blk0 = base / kBlockValues, nblk = (base + len - 1) / kBlockValues - blk0 + 1;
  const T step = qz.step(), inv = qz.inv_step(), accept = qz.accept();
  rec.resize(len);
  bad.assign(nblk, 0);
  for (size_t b0 = 0; b0 < nblk; ++b0) fail[blk0 + b0] = 0;
  for (int pass = 0;; ++pass) {
    bool more = false;
    visit<T>(p, slab, [&](size_t j, auto predict) {
      const size_t i = base + j, blk = i / kBlockValues;
      if (fail[blk]) {
        rec[j] = x[i];
        k[i] = 0;
        return;
      }
      const T pr = predict(rec.data());
      const T y = (x[i] - pr) * inv;
      const bool in_range = std::fabs(y) < T(LinearQuantizer<T>::kLimit);  // false for NaN
      const Int q = in_range ? Int(std::nearbyint(y)) : Int(0);
      const T r = pr + T(q) * step;
      k[i] = q;
      rec[j] = r;
      if (!(in_range && std::fabs(x[i] - r) <= accept)) {
        bad[blk - blk0] = 1;
        more = true;
      }
    });
    if (!more) return;
    const bool give_up = pass + 1 == kMaxPasses;
    for (size_t b0 = 0; b0 < nblk; ++b0) fail[blk0 + b0] |= give_up || bad[b0];
    if (give_up) return;
  }
}

// Decodes the planes [z0, z1) into out, where the values of raw blocks (raw[blk] != 0)
// already are.
template <class T>
void decode_slab(Predictor p, const typename BlockTraits<T>::Int* k, const Box& b,
                 size_t z0, size_t z1, const uint8_t* raw, T step, T* out) {
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane();
  T* v = out + base;
  visit<T>(p, slab, [&](size_t j, auto predict) {
    const size_t i = base + j;
    if (!raw[i / kBlockValues]) v[j] = predict(v) + T(k[i]) * step;
  });
}

}  // namespace commpress::codec::szp
