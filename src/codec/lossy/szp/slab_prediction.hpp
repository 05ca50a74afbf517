// Encoding and decoding one slab of a shaped szp-e payload with a predictor that visits the
// slab's values in its own order (interpolation_nd.hpp): the code of each
// value is k = round((x - P) / step) and the value comes back as P + k step, P computed from
// values already decoded and the step set by the value's level (LevelSteps). A block holding
// a value the bound refuses travels raw, and its
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
#include "codec/lossy/szp/interpolation_runs.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"

namespace commpress::codec::szp {

// The predictor byte of a shaped payload's prefix (one so far; the byte leaves room).
enum class Predictor : uint8_t { interpolation = 1 };

inline constexpr int kMaxPasses = 4;

// The quantization step of a code visited at stride s: finer at the coarse levels, whose
// values every finer level is interpolated from (as SZ3 tightens its bound there). On the
// 256^3 smooth field (bench/results/codecs.md) this raises the ratio from 209 to 293 at REL
// 1e-2 and from 33 to 38 at 1e-3 over one step for all levels (docs/measured-choices.md).
template <class T>
struct LevelSteps {
  T step[3], inv[3];  // stride 1, 2, >= 4
  explicit LevelSteps(T full) {
    const T scale[3] = {T(1), T(0.75), T(0.5)};
    for (int l = 0; l < 3; ++l) {
      step[l] = full * scale[l];
      inv[l] = step[l] > 0 ? T(1) / step[l] : T(0);
    }
  }
  static int level(size_t stride) { return stride >= 4 ? 2 : stride == 2 ? 1 : 0; }
};

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

// Codes are stored in the order the predictor visits the values (a slab's codes fill its own
// range of indices, base + the visit's count), not at the values' positions: the coarse
// levels' codes, which carry what the data hold, come first and the finest levels', nearly
// all 0 at loose bounds, form long runs of zero blocks (as SZ3 orders its codes).

// Encodes the planes [z0, z1) of the box b: codes into k and the values in code order into
// xs (what raw blocks carry), fail[blk] for each block of the slab's codes (slabs start on a
// block boundary, or there is only one). rec: scratch for the slab's reconstructed values,
// bad: scratch of the slab's blocks.
template <class T>
void encode_slab(Predictor p, const T* x, const Box& b, size_t z0, size_t z1,
                 const LinearQuantizer<T>& qz, typename BlockTraits<T>::Int* k, T* xs,
                 uint8_t* fail, std::vector<T>& rec, std::vector<uint8_t>& bad) {
  using Int = typename BlockTraits<T>::Int;
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane(), len = slab.count();
  const size_t blk0 = base / kBlockValues, nblk = (base + len - 1) / kBlockValues - blk0 + 1;
  const LevelSteps<T> steps(qz.step());
  const T accept = qz.accept();
  rec.resize(len);
  bad.assign(nblk, 0);
  for (size_t b0 = 0; b0 < nblk; ++b0) fail[blk0 + b0] = 0;
  for (int pass = 0;; ++pass) {
    bool more = false;
    size_t i = base;  // the code's index
    visit<T>(p, slab, [&](size_t j, auto predict, size_t stride) {
      const int l = LevelSteps<T>::level(stride);
      const T step = steps.step[l], inv = steps.inv[l];
      const T v = x[base + j];
      const size_t blk = i / kBlockValues;
      xs[i] = v;
      if (fail[blk]) {
        rec[j] = v;
        k[i++] = 0;
        return;
      }
      const T pr = predict(rec.data());
      const T y = (v - pr) * inv;
      const bool in_range = std::fabs(y) < T(LinearQuantizer<T>::kLimit);  // false for NaN
      const Int q = in_range ? Int(std::nearbyint(y)) : Int(0);
      const T r = pr + T(q) * step;
      k[i++] = q;
      rec[j] = r;
      if (!(in_range && std::fabs(v - r) <= accept)) {
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

// Decodes the planes [z0, z1) into out from the codes k and, for codes in raw blocks
// (raw[blk] != 0), the values xs, both in code order.
template <class T>
void decode_slab(Predictor p, const typename BlockTraits<T>::Int* k, const T* xs, const Box& b,
                 size_t z0, size_t z1, const uint8_t* raw, T step, T* out) {
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane();
  T* v = out + base;
  size_t i = base;
  const LevelSteps<T> steps(step);
  visit<T>(p, slab, [&](size_t j, auto predict, size_t stride) {
    const T stp = steps.step[LevelSteps<T>::level(stride)];
    v[j] = raw[i / kBlockValues] ? xs[i] : predict(v) + T(k[i]) * stp;
    ++i;
  });
}

}  // namespace commpress::codec::szp
