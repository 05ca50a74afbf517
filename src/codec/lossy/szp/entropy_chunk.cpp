// szp-e chunks: choose the predictor, quantize, code the blocks, run-length the headers and
// pass both streams through zstd where that pays. Layout: docs/format/szp-e.md.
#include "codec/lossy/szp/entropy_chunk.hpp"

#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "codec/lossy/szp/chained_kernels_avx512.hpp"
#include "codec/lossy/szp/chained_lorenzo.hpp"
#include "codec/lossy/szp/chunk_streams.hpp"
#include "codec/lossy/szp/hysteresis_quantizer.hpp"
#include "codec/lossy/szp/sparse_chunk.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "codec/lossy/szp/zstd_stream.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp {

using namespace chunk;

namespace {

// Values the encoder looks at to choose a chunk's mode.
constexpr size_t kSampleValues = 4096;

// The encoder's choice of mode (any valid mode decodes): order 2 where the integers' second
// differences are clearly smaller than their first differences (a smooth trend against the
// bound), the half step with hysteresis where plain rounding changes the integer at fewer
// than a quarter of the values (data that drift slowly against the bound). `few_moves`: the
// chosen order's residuals are non-zero at under a quarter of the sample's values, the only
// chunks whose events szp-eh weighs against its blocks.
struct ModeChoice {
  uint8_t mode = 1;
  bool few_moves = false;
};

template <class T>
ModeChoice choose_mode(const T* x, size_t len, double eb) {
  if (!(eb > 0)) return {};  // exact chunks: zero and raw blocks only
  const LinearQuantizer<T> qz(eb);
  const size_t m = std::min(len, kSampleValues);
  using Int = IntOf<T>;
  // The sample's integers first, in vector code, then the sums over them, which skip no value
  // when none is refused (the chain of the loop below, value for value).
  Int qs[kSampleValues];
  uint32_t refused = 0;
#if COMMPRESS_SZP_E_AVX512
  if (m % kBlockValues == 0) {  // the szp kernels' quantizer: the same integers and checks
    using L = detail::Lanes<T>;
    for (size_t b = 0; b < m && !refused; b += kBlockValues) {
      __m512i qv[L::kVectors];
      refused += !detail::quantize_rounded_avx512(x + b, qz, qv);
      for (int g = 0; g < L::kVectors; ++g)
        _mm512_storeu_si512(qs + b + size_t(g) * L::kPerVector, qv[g]);
    }
  } else
#endif
  {
    for (size_t i = 0; i < m; ++i) refused += !qz.quantize(x[i], qs[i]);
  }
  double s1 = 0, s2 = 0;
  size_t moves = 0, bends = 0, seen = 0;
  if (refused == 0) {
    for (size_t i = 2; i < m; ++i) {
      const double d1 = double(qs[i]) - double(qs[i - 1]);
      const double d2 = d1 - (double(qs[i - 1]) - double(qs[i - 2]));
      s1 += std::fabs(d1);
      s2 += std::fabs(d2);
      moves += d1 != 0;
      bends += d2 != 0;
    }
    seen = m;
  } else {  // values that cannot be quantized drop out of the chain
    Int q1 = 0, q2 = 0;
    for (size_t i = 0; i < m; ++i) {
      Int q;
      if (!qz.quantize(x[i], q)) continue;
      if (seen >= 2) {
        const double d1 = double(q) - double(q1), d2 = d1 - (double(q1) - double(q2));
        s1 += std::fabs(d1);
        s2 += std::fabs(d2);
        moves += d1 != 0;
        bends += d2 != 0;
      }
      q2 = q1;
      q1 = q;
      ++seen;
    }
  }
  if (seen < 3) return {};
  if (4 * s2 < 3 * s1) return {2, 4 * bends < seen - 2};
  const bool half_ok = std::isnormal(double(qz.step() / T(2)));
  if (half_ok && 4 * moves < seen - 2) return {uint8_t(1 | kHalfStep), true};
  return {1, false};
}

// A chunk's streams as the decoder reads them: the header bytes of its nb blocks land in
// s.headers, the bodies (their exact size checked) are returned. `shaped`: the chunk belongs
// to a shaped payload, whose only mode is kShapedCodes.
template <class T>
Result<std::span<const std::byte>> read_chunk_streams(std::span<const std::byte> chunk,
                                                      size_t len, double eb, bool shaped,
                                                      ChunkScratch& s) {
  const size_t nb = block_count(len);
  const uint8_t mode = std::to_integer<uint8_t>(chunk[0]);
  const uint8_t coding = std::to_integer<uint8_t>(chunk[1]);
  const bool exact = eb == 0;
  if ((shaped ? mode != kShapedCodes : !valid_mode(mode)) ||
      (coding & ~(kRunsZstd | kBodiesZstd)) != 0)
    return Status{ErrorCode::corrupt_frame, "szp-e chunk has mode " + std::to_string(mode) +
                                                " and coding " + std::to_string(coding)};
  if (exact && mode != 1)
    return Status{ErrorCode::corrupt_frame,
                  "szp-e chunk of an exact frame (bound 0) has mode " + std::to_string(mode)};
  const size_t hs = core::load_le<uint32_t>(chunk.data() + 2);
  const auto stored_runs = chunk.subspan(kChunkHeaderSize, hs);
  const auto stored_bodies = chunk.subspan(kChunkHeaderSize + hs);

  thread_local std::vector<std::byte> runs_scratch, bodies_scratch;
  auto runs = get_stream(stored_runs, coding & kRunsZstd, max_header_runs_size(nb), SIZE_MAX,
                         runs_scratch, "header");
  if (!runs.ok()) return runs.status();
  s.headers.resize(nb);
  if (!decode_header_runs(reinterpret_cast<const uint8_t*>(runs->data()), runs->size(),
                          s.headers.data(), nb))
    return Status{ErrorCode::corrupt_frame, "szp-e header runs do not describe the chunk's " +
                                                std::to_string(nb) + " blocks"};
  const auto& table = kBodySizeTable<T>[0];
  const size_t last_valid = valid_in_block(len, nb - 1);
  uint64_t need = 0;
  uint32_t seen = 0;
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t h = s.headers[b];
    seen |= table[h];
    need += table[h];
    if (exact && h != kZeroHeader && h != kRawHeader)
      return Status{ErrorCode::corrupt_frame,
                    "szp-e block " + std::to_string(b) + " has header byte " + std::to_string(h) +
                        " in a frame of bound 0, which holds only zero and raw blocks"};
  }
  if (seen & kInvalidEntry)
    return Status{ErrorCode::corrupt_frame, "szp-e chunk holds an invalid block header byte"};
  if (s.headers[nb - 1] == kRawHeader) need -= (kBlockValues - last_valid) * sizeof(T);
  auto bodies = get_stream(stored_bodies, coding & kBodiesZstd, need, need, bodies_scratch, "body");
  if (!bodies.ok()) return bodies.status();
  if (bodies->size() != need)
    return Status{ErrorCode::corrupt_frame, "szp-e block bodies need " + std::to_string(need) +
                                                " bytes but the chunk holds " +
                                                std::to_string(bodies->size())};
  return *bodies;
}

const char* const kPaddingError =
    "szp-e's last block has non-zero residuals in its padding: the payload was written for "
    "another element count";

}  // namespace

template <class T>
Result<size_t> encode_chunk(const T* x, size_t len, double eb, std::byte* dst, bool sparse) {
  using Int = IntOf<T>;
  const size_t nb = block_count(len);
  const ModeChoice choice = choose_mode(x, len, eb);
  const uint8_t mode = choice.mode;
  const int order = mode & kOrderMask;
  const bool half = mode & kHalfStep;
  const LinearQuantizer<T> qz(eb, half);
  ChunkScratch& s = scratch_for<T>(nb);
  if (sparse && choice.few_moves) return encode_sparse_first(x, len, mode, qz, s, dst);

  ChainState<Int> st;
  size_t pos = 0;
  for (size_t b = 0; b < nb; ++b) {
    const size_t valid = valid_in_block(len, b);
    const T* xb = x + b * kBlockValues;
    std::byte* body = s.bodies.data() + pos;
#if COMMPRESS_SZP_E_AVX512
    if (valid == kBlockValues) {
      __m512i qv[64 / sizeof(T) == 16 ? 2 : 4];
      Int carry = st.q1;
      const bool fine = half ? detail::quantize_hysteresis_avx512(xb, qz, carry, qv)
                             : detail::quantize_rounded_avx512(xb, qz, qv);
      uint8_t h = kRawHeader;
      const size_t size =
          fine ? detail::encode_chained_avx512(qv, order, st.q1, st.q2, xb, valid, h, body)
               : write_raw_block(xb, valid, body);
      if (h != kRawHeader) {
        st.q1 = detail::last_lane<T>(qv[std::size(qv) - 1], 64 / sizeof(T) - 1);
        st.q2 = detail::last_lane<T>(qv[std::size(qv) - 1], 64 / sizeof(T) - 2);
      }
      s.headers[b] = h;
      pos += size;
      continue;
    }
#endif
    Int q[kBlockValues], r[kBlockValues];
    bool ok = quantize_portable(xb, valid, qz, half, st.q1, q);
    size_t size = 0;
    uint8_t h = kRawHeader;
    if (ok) {
      ChainedLorenzo::forward(q, valid, order, st, r);
      size = encode_residuals<T>(r, Mode::lossy, h, body);
      ok = size < valid * sizeof(T);
    }
    if (ok) {
      ChainedLorenzo::advance(q, st);
    } else {  // a raw block leaves the prediction state as it was
      h = kRawHeader;
      size = write_raw_block(xb, valid, body);
    }
    s.headers[b] = h;
    pos += size;
  }
  return finish_chunk(mode, s, nb, pos, len * sizeof(T), dst);
}

Result<size_t> chunk_size_at(std::span<const std::byte> rest) {
  if (rest.size() < kChunkHeaderSize)
    return Status{ErrorCode::corrupt_frame, "szp-e payload ends inside a chunk header"};
  const uint64_t size = kChunkHeaderSize + uint64_t(core::load_le<uint32_t>(rest.data() + 2)) +
                        core::load_le<uint32_t>(rest.data() + 6);
  if (size > rest.size())
    return Status{ErrorCode::corrupt_frame, "szp-e chunk of " + std::to_string(size) +
                                                " bytes overruns the payload"};
  return size_t(size);
}

template <class T>
Status decode_chunk(std::span<const std::byte> chunk, size_t len, double eb, T* out) {
  using Int = IntOf<T>;
  const size_t nb = block_count(len);
  if (std::to_integer<uint8_t>(chunk[0]) & kSparse) return decode_sparse_chunk(chunk, len, eb, out);
  ChunkScratch& s = thread_scratch();
  auto bodies = read_chunk_streams<T>(chunk, len, eb, false, s);
  if (!bodies.ok()) return bodies.status();
  const uint8_t mode = std::to_integer<uint8_t>(chunk[0]);
  const auto& table = kBodySizeTable<T>[0];
  const size_t last_valid = valid_in_block(len, nb - 1);
  const LinearQuantizer<T> qz(eb, mode & kHalfStep);
  const int order = mode & kOrderMask;
  const T step = qz.step();
  ChainState<Int> st;
  const std::byte* body = bodies->data();
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t h = s.headers[b];
    const size_t valid = b + 1 == nb ? last_valid : kBlockValues;
    T* o = out + b * kBlockValues;
    if (h == kRawHeader) {
      read_raw_block(body, valid, o);
      body += valid * sizeof(T);
      continue;
    }
    if (h == kZeroHeader && order == 1) {  // the common case at loose bounds
      const T v = T(st.q1) * step;
      for (size_t i = 0; i < valid; ++i) o[i] = v;
      st.q2 = st.q1;
      continue;
    }
#if COMMPRESS_SZP_E_AVX512
    if (valid == kBlockValues) {
      detail::decode_chained_avx512(h, body, order, qz, st.q1, st.q2, o);
      body += table[h];
      continue;
    }
#endif
    Int r[kBlockValues], q[kBlockValues];
    const bool ok = decode_residuals<T>(h, Mode::lossy, {body, table[h]}, r);
    if (!ok) return {ErrorCode::internal, "szp-e: a checked block header did not decode"};
    body += table[h];
    for (size_t i = valid; i < kBlockValues; ++i)
      if (r[i] != 0) return {ErrorCode::corrupt_frame, kPaddingError};
    ChainedLorenzo::inverse(r, order, st, q);
    for (size_t i = 0; i < valid; ++i) o[i] = T(q[i]) * step;
  }
  return {};
}

template <class T>
Result<size_t> encode_shaped_chunk(const T* x, const IntOf<T>* k, const uint8_t* fail,
                                    size_t begin, size_t len, std::byte* dst) {
  using Int = IntOf<T>;
  const size_t nb = block_count(len);
  ChunkScratch& s = scratch_for<T>(nb);
  size_t pos = 0;
  for (size_t b = 0; b < nb; ++b) {
    const size_t valid = valid_in_block(len, b), at = begin + b * kBlockValues;
    std::byte* body = s.bodies.data() + pos;
    uint8_t h = kRawHeader;
    size_t size = 0;
    if (!fail[at / kBlockValues]) {
      Int r[kBlockValues] = {};  // padding lanes of a last block stay 0
      std::memcpy(r, k + at, valid * sizeof(Int));
      size = encode_residuals<T>(r, Mode::lossy, h, body);
    } else {
      size = write_raw_block(x + at, valid, body);
    }
    s.headers[b] = h;
    pos += size;
  }
  return finish_chunk(kShapedCodes, s, nb, pos, len * sizeof(T), dst);
}

template <class T>
Status decode_shaped_chunk(std::span<const std::byte> chunk, size_t len, double eb,
                            size_t begin, IntOf<T>* qr, uint8_t* raw, T* out) {
  const size_t nb = block_count(len);
  ChunkScratch& s = thread_scratch();
  auto bodies = read_chunk_streams<T>(chunk, len, eb, true, s);
  if (!bodies.ok()) return bodies.status();
  const auto& table = kBodySizeTable<T>[0];
  const size_t last_valid = valid_in_block(len, nb - 1);
  const std::byte* body = bodies->data();
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t h = s.headers[b];
    const size_t valid = b + 1 == nb ? last_valid : kBlockValues, at = begin + b * kBlockValues;
    raw[at / kBlockValues] = h == kRawHeader;
    if (h == kRawHeader) {
      read_raw_block(body, valid, out + at);
      body += valid * sizeof(T);
      continue;
    }
    IntOf<T> r[kBlockValues];
    if (!decode_residuals<T>(h, Mode::lossy, {body, table[h]}, r))
      return {ErrorCode::internal, "szp-e: a checked block header did not decode"};
    body += table[h];
    for (size_t i = valid; i < kBlockValues; ++i)
      if (r[i] != 0) return {ErrorCode::corrupt_frame, kPaddingError};
    std::memcpy(qr + at, r, valid * sizeof(r[0]));
  }
  return {};
}

template Result<size_t> encode_chunk<float>(const float*, size_t, double, std::byte*, bool);
template Result<size_t> encode_chunk<double>(const double*, size_t, double, std::byte*, bool);
template Status decode_chunk<float>(std::span<const std::byte>, size_t, double, float*);
template Status decode_chunk<double>(std::span<const std::byte>, size_t, double, double*);
template Result<size_t> encode_shaped_chunk<float>(const float*, const int32_t*, const uint8_t*,
                                                    size_t, size_t, std::byte*);
template Result<size_t> encode_shaped_chunk<double>(const double*, const int64_t*,
                                                     const uint8_t*, size_t, size_t, std::byte*);
template Status decode_shaped_chunk<float>(std::span<const std::byte>, size_t, double, size_t,
                                            int32_t*, uint8_t*, float*);
template Status decode_shaped_chunk<double>(std::span<const std::byte>, size_t, double, size_t,
                                             int64_t*, uint8_t*, double*);

}  // namespace commpress::codec::szp
