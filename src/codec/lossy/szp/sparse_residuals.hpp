// szp-e's sparse chunks (docs/format/szp-e.md, "Sparse chunk"): the chained Lorenzo residuals
// of a chunk written as events, each the count of zero residuals before a non-zero one and
// that residual, instead of szp blocks. Where the data drift slowly against the bound (a
// random walk at REL 1e-3 with the half step) a few values in a hundred move their integer;
// blocks then pay a header byte and a bit plane for every block holding one move, which only
// zstd's slower levels win back, while an event costs about two bytes and zstd's fastest level
// finds what redundancy is left. Raw blocks stay raw: their indices lead the event stream and
// their values travel in a stream of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "codec/lossy/szp/chained_lorenzo.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "codec/lossy/szp/portable_block.hpp"
#include "core/leb128.hpp"

namespace commpress::codec::szp {

namespace sparse {

template <class U>
inline U zigzag(U u) {
  return U(u << 1) ^ U(-(u >> (sizeof(U) * 8 - 1)));
}

template <class U>
inline U unzigzag(U z) {
  return U(z >> 1) ^ U(-(z & 1));
}

}  // namespace sparse

// A lower bound on what a block whose non-zero residuals are the lanes of `mask` (not 0)
// costs in the blocks' layout, header byte included: a residual past lane 0 needs a sign map
// and a bit plane (8 bytes, plain or outlier), one in lane 0 alone an outlier byte.
inline size_t least_block_bytes(uint32_t mask) { return mask == 1 ? 2 : 9; }

// The event stream of a chunk from its blocks' chained residuals r[32 b ..], the non-zero
// lanes of each (masks[b]) and which blocks are raw (raw[b]; their residuals are not read):
// the raw blocks' count and indices (each as the gap after the one before), then per
// non-zero residual of the non-raw values, in order, the count of zero residuals before it
// and the residual zigzagged, all in LEB128. Writes it to `out` and returns its size, or 0
// when it would reach `limit` bytes.
template <class Int>
size_t write_sparse_events(const Int* r, const uint32_t* masks, const uint8_t* raw, size_t len,
                           size_t limit, std::vector<uint8_t>& out) {
  using U = std::make_unsigned_t<Int>;
  const size_t nb = block_count(len);
  // 2 LEB128 numbers of at most 10 bytes each past `limit` fit.
  if (out.size() < limit + 2 * 10) out.resize(limit + 2 * 10);
  uint8_t* o = out.data();
  auto put = [&o](uint64_t v) { core::put_leb128(o, v); };
  size_t raws = 0;
  for (size_t b = 0; b < nb; ++b) raws += raw[b];
  put(raws);
  for (size_t b = 0, next = 0; b < nb; ++b)
    if (raw[b]) {
      put(b - next);
      next = b + 1;
      if (o >= out.data() + limit) return 0;
    }
  const uint8_t* end = out.data() + limit;
  size_t zeros = 0;
  for (size_t b = 0; b < nb; ++b) {
    if (raw[b]) continue;
    const size_t valid = valid_in_block(len, b);
    size_t last = 0;  // lanes before `last` are counted in `zeros` or written
    for (uint32_t m = masks[b]; m; m &= m - 1) {
      const size_t i = size_t(__builtin_ctz(m));
      put(zeros + (i - last));
      put(uint64_t(sparse::zigzag(U(r[b * kBlockValues + i]))));
      zeros = 0;
      last = i + 1;
    }
    zeros += valid - last;
    if (o >= end) return 0;
  }
  const size_t size = size_t(o - out.data());
  return size < limit ? size : 0;
}

// The raw blocks of an event stream, read from its front: raw[b] for the chunk's nb blocks,
// and the position after them in `pos`. False when the stream ends early, names a block past
// the chunk or counts more raw blocks than it has.
inline bool read_sparse_raw_blocks(const uint8_t* in, size_t len, size_t nb, size_t& pos,
                                   std::vector<uint8_t>& raw) {
  raw.assign(nb, 0);
  uint64_t raws = 0;
  if (!core::get_leb128(in, len, pos, 64, raws) || raws > nb) return false;
  uint64_t next = 0;
  for (uint64_t k = 0; k < raws; ++k) {
    uint64_t gap = 0;
    if (!core::get_leb128(in, len, pos, 64, gap) || gap >= nb - next) return false;
    next += gap;
    raw[next++] = 1;
  }
  return true;
}

// Decodes the residual events that follow the raw blocks (at `pos` of the stream) into the
// chunk's values: raw blocks from raw_values (their values in order, little-endian), the
// others reconstructed as T(q) * step, q from the chained prediction of `order`. False, with
// `why` set, when an event falls past the chunk's non-raw values, a residual is 0 or does not
// fit the integer, or bytes follow the last event.
template <class T>
bool decode_sparse_values(const uint8_t* in, size_t len, size_t pos,
                          const std::vector<uint8_t>& raw, const std::byte* raw_values,
                          size_t values, int order, T step, T* out, const char*& why) {
  using Int = typename LinearQuantizer<T>::Int;
  using U = std::make_unsigned_t<Int>;
  const size_t nb = block_count(values);
  size_t coded = 0;  // non-raw values before the current block
  // The next event's position among the non-raw values (SIZE_MAX: none left) and residual.
  size_t at = 0, next = SIZE_MAX;
  U residual = 0;
  bool first = true;
  auto advance = [&]() -> bool {
    if (pos == len) {
      next = SIZE_MAX;
      return true;
    }
    uint64_t gap = 0, z = 0;
    if (!core::get_leb128(in, len, pos, 64, gap) ||
        !core::get_leb128(in, len, pos, int(sizeof(U) * 8), z)) {
      why = "an event is cut short or wider than its integer";
      return false;
    }
    const uint64_t p = first ? gap : uint64_t(at) + 1 + gap;
    if (gap >= values || p >= values || z == 0) {  // gap < values: p neither wraps nor repeats
      why = z == 0 ? "an event holds the residual 0" : "an event falls past the chunk's values";
      return false;
    }
    first = false;
    at = size_t(p);
    next = at;
    residual = sparse::unzigzag(U(z));
    return true;
  };
  if (!advance()) return false;
  ChainState<Int> st;
  for (size_t b = 0; b < nb; ++b) {
    const size_t valid = valid_in_block(values, b);
    T* o = out + b * kBlockValues;
    if (raw[b]) {
      portable::read_raw_block(raw_values, valid, o);
      raw_values += valid * sizeof(T);
      continue;
    }
    if (order == 1 && (next == SIZE_MAX || next >= coded + valid)) {
      const T v = T(st.q1) * step;
      for (size_t i = 0; i < valid; ++i) o[i] = v;
      st.q2 = st.q1;
      coded += valid;
      continue;
    }
    Int r[kBlockValues] = {}, qb[kBlockValues];
    while (next != SIZE_MAX && next < coded + valid) {
      r[next - coded] = Int(residual);
      if (!advance()) return false;
    }
    ChainedLorenzo::inverse(r, order, st, qb);
    for (size_t i = 0; i < valid; ++i) o[i] = T(qb[i]) * step;
    coded += valid;
  }
  if (next != SIZE_MAX) {
    why = "an event falls past the chunk's non-raw values";
    return false;
  }
  return true;
}

}  // namespace commpress::codec::szp
