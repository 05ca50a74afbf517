// szp-eh's sparse chunks (sparse_chunk.hpp).
#include "codec/lossy/szp/sparse_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "codec/lossy/szp/chained_kernels_avx512.hpp"
#include "codec/lossy/szp/chained_lorenzo.hpp"
#include "codec/lossy/szp/sparse_residuals.hpp"

namespace commpress::codec::szp {

using namespace chunk;

namespace {

// The chunk's integers and chained residuals, block by block (szp-eh's encoder).
template <class Int>
struct SparseScratch {
  std::vector<Int> q, r;
};

template <class Int>
SparseScratch<Int>& sparse_scratch() {
  thread_local SparseScratch<Int> s;
  return s;
}

}  // namespace

// szp-eh's chunk: every block quantized first (raw where that fails), with its chained
// residuals and their non-zero lanes, the state running on through every quantized block;
// then the events, and the blocks' layout only where the events do not clearly win (the
// blocks' bodies, which a sparse chunk never needs, are most of a block's coding work).
template <class T>
Result<size_t> encode_sparse_first(const T* x, size_t len, uint8_t mode,
                                   const LinearQuantizer<T>& qz, ChunkScratch& s,
                                   std::byte* dst) {
  using Int = IntOf<T>;
  const size_t nb = block_count(len);
  const int order = mode & kOrderMask;
  const bool half = mode & kHalfStep;
  SparseScratch<Int>& w = sparse_scratch<Int>();
  w.q.resize(nb * kBlockValues);
  w.r.resize(nb * kBlockValues);
  s.masks.resize(nb);
  s.raw.resize(nb);
  ChainState<Int> st;
  for (size_t b = 0; b < nb; ++b) {
    const size_t valid = valid_in_block(len, b);
    const T* xb = x + b * kBlockValues;
    Int* qb = w.q.data() + b * kBlockValues;
    Int* rb = w.r.data() + b * kBlockValues;
#if COMMPRESS_SZP_E_AVX512
    if (valid == kBlockValues) {
      using L = detail::Lanes<T>;
      constexpr int V = L::kVectors, P = L::kPerVector;
      __m512i qv[V];
      s.masks[b] = 0;
      s.raw[b] = 0;
      // Most blocks of these chunks keep the carried integer throughout (hysteresis, order
      // 1): one check per vector, and their residuals are all 0.
      if (half && detail::all_within_avx512(xb, qz, st.q1)) {
        const __m512i c = L::set1(int64_t(st.q1));
        for (int g = 0; g < V; ++g) _mm512_storeu_si512(qb + g * P, c);
        st.q2 = st.q1;
        continue;
      }
      Int carry = st.q1;
      const bool fine = half ? detail::quantize_hysteresis_avx512(xb, qz, carry, qv)
                             : detail::quantize_rounded_avx512(xb, qz, qv);
      s.raw[b] = !fine;
      if (!fine) continue;
      // d = q - q shifted by one lane (q1 before lane 0); order 2 takes d's differences
      // the same way (q1 - q2 before lane 0).
      __m512i prev = L::set1(int64_t(st.q1)), dprev = L::set1(int64_t(st.q1) - int64_t(st.q2));
      uint32_t mask = 0;
      for (int g = 0; g < V; ++g) {
        _mm512_storeu_si512(qb + g * P, qv[g]);
        const __m512i d = L::sub(qv[g], L::shift_in(qv[g], prev));
        prev = qv[g];
        __m512i r = d;
        if (order == 2) {
          r = L::sub(d, L::shift_in(d, dprev));
          dprev = d;
        }
        _mm512_storeu_si512(rb + g * P, r);
        mask |= L::test(r, r) << (g * P);
      }
      s.masks[b] = mask;
      st.q1 = detail::last_lane<T>(qv[V - 1], P - 1);
      st.q2 = detail::last_lane<T>(qv[V - 1], P - 2);
      continue;
    }
#endif
    s.raw[b] = 0;
    s.masks[b] = 0;
    if (half) {  // the same shortcut as above, so that both paths write the same bytes
      bool keep = true;
      const T at = T(st.q1) * qz.step();
      for (size_t i = 0; i < valid; ++i) keep &= std::fabs(xb[i] - at) <= qz.accept();
      if (keep) {
        std::fill_n(qb, kBlockValues, st.q1);
        st.q2 = st.q1;
        continue;
      }
    }
    const bool ok = quantize_portable(xb, valid, qz, half, st.q1, qb);
    s.raw[b] = !ok;
    if (!ok) continue;
    ChainedLorenzo::forward(qb, valid, order, st, rb);
    ChainedLorenzo::advance(qb, st);
    uint32_t mask = 0;
    for (size_t i = 0; i < valid; ++i) mask |= uint32_t(rb[i] != 0) << i;
    s.masks[b] = mask;
  }

  // The raw blocks cost their values in either layout; the rest is compared.
  size_t zero_blocks = 0, raw_bytes = 0, least = 0;
  for (size_t b = 0; b < nb; ++b) {
    if (s.raw[b]) {
      raw_bytes += valid_in_block(len, b) * sizeof(T);
      continue;
    }
    zero_blocks += s.masks[b] == 0;
    if (s.masks[b]) least += least_block_bytes(s.masks[b]);
  }
  // Events pay where few integers move; with fewer than one zero block in eight they move
  // nearly everywhere, and the events are not even counted.
  size_t events = 0;
  if (8 * zero_blocks >= nb)
    events = write_sparse_events(w.r.data(), s.masks.data(), s.raw.data(), len,
                                 len * sizeof(T) + max_header_runs_size(nb), s.events);
  size_t body_bytes = 0;
  if (!events || events >= least) {
    // The blocks' layout from the same integers, the state advancing as a decoder's does
    // (not through a block whose body would not be smaller than its values: it goes raw).
    ChainState<Int> bs;
    for (size_t b = 0; b < nb; ++b) {
      const size_t valid = valid_in_block(len, b);
      const T* xb = x + b * kBlockValues;
      const Int* qb = w.q.data() + b * kBlockValues;
      std::byte* body = s.bodies.data() + body_bytes;
      uint8_t h = kRawHeader;
      size_t size = 0;
      if (!s.raw[b]) {
#if COMMPRESS_SZP_E_AVX512
        if (valid == kBlockValues) {
          using L = detail::Lanes<T>;
          __m512i qv[L::kVectors];
          for (int g = 0; g < L::kVectors; ++g)
            qv[g] = _mm512_loadu_si512(qb + g * L::kPerVector);
          size = detail::encode_chained_avx512(qv, order, bs.q1, bs.q2, xb, valid, h, body);
        } else
#endif
        {
          Int r[kBlockValues];
          ChainedLorenzo::forward(qb, valid, order, bs, r);
          size = encode_residuals<T>(r, Mode::lossy, h, body);
          if (size >= valid * sizeof(T)) h = kRawHeader;
        }
      }
      if (h == kRawHeader) size = write_raw_block(xb, valid, body);
      else ChainedLorenzo::advance(qb, bs);
      s.headers[b] = h;
      body_bytes += size;
    }
    const size_t runs = encode_header_runs(s.headers.data(), nb, s.runs.data());
    if (!events || events + raw_bytes >= runs + body_bytes)
      return write_chunk(mode, s.runs.data(), runs, s.bodies.data(), body_bytes, len * sizeof(T),
                         0, dst);
  }
  s.raw_values.resize(raw_bytes);
  for (size_t b = 0, at = 0; b < nb; ++b)
    if (s.raw[b])
      at += write_raw_block(x + b * kBlockValues, valid_in_block(len, b), s.raw_values.data() + at);
  // The events go through zstd's fastest level: what they leave is little, and the blocks'
  // slower level is what this layout exists to avoid.
  return write_chunk(uint8_t(mode | kSparse), s.events.data(), events, s.raw_values.data(),
                     raw_bytes, len * sizeof(T), kZstdFastLevel, dst);
}

// A sparse chunk (mode | kSparse): the event stream, then the raw values it names.
template <class T>
Status decode_sparse_chunk(std::span<const std::byte> chunk, size_t len, double eb, T* out) {
  const size_t nb = block_count(len);
  const uint8_t mode = std::to_integer<uint8_t>(chunk[0]);
  const uint8_t coding = std::to_integer<uint8_t>(chunk[1]);
  auto bad = [](const std::string& why) {
    return Status{ErrorCode::corrupt_frame, "szp-e sparse chunk: " + why};
  };
  if (!valid_mode(uint8_t(mode & ~kSparse)) || (coding & ~(kRunsZstd | kBodiesZstd)) != 0)
    return bad("mode " + std::to_string(mode) + " and coding " + std::to_string(coding));
  if (eb == 0) return bad("in a frame of bound 0, which holds only zero and raw blocks");
  const size_t hs = core::load_le<uint32_t>(chunk.data() + 2);
  thread_local std::vector<std::byte> events_scratch, values_scratch;
  // The encoder writes events only where they are smaller than the blocks would be.
  auto events = get_stream(chunk.subspan(kChunkHeaderSize, hs), coding & kRunsZstd,
                           max_chunk_size<T>(len), SIZE_MAX, events_scratch, "event");
  if (!events.ok()) return events.status();
  const auto* in = reinterpret_cast<const uint8_t*>(events->data());
  ChunkScratch& s = thread_scratch();
  size_t pos = 0;
  if (!read_sparse_raw_blocks(in, events->size(), nb, pos, s.raw))
    return bad("its raw blocks are not " + std::to_string(nb) + " blocks' indices");
  size_t raw_bytes = 0;
  for (size_t b = 0; b < nb; ++b) raw_bytes += s.raw[b] * valid_in_block(len, b) * sizeof(T);
  auto values = get_stream(chunk.subspan(kChunkHeaderSize + hs), coding & kBodiesZstd, raw_bytes,
                           raw_bytes, values_scratch, "raw value");
  if (!values.ok()) return values.status();
  if (values->size() != raw_bytes)
    return bad("its raw blocks need " + std::to_string(raw_bytes) + " bytes of values but it holds " +
               std::to_string(values->size()));
  const LinearQuantizer<T> qz(eb, mode & kHalfStep);
  const char* why = "";
  if (!decode_sparse_values<T>(in, events->size(), pos, s.raw, values->data(), len,
                               mode & kOrderMask, qz.step(), out, why))
    return bad(why);
  return {};
}

template Result<size_t> encode_sparse_first<float>(const float*, size_t, uint8_t,
                                                   const LinearQuantizer<float>&, ChunkScratch&,
                                                   std::byte*);
template Result<size_t> encode_sparse_first<double>(const double*, size_t, uint8_t,
                                                    const LinearQuantizer<double>&, ChunkScratch&,
                                                    std::byte*);
template Status decode_sparse_chunk<float>(std::span<const std::byte>, size_t, double, float*);
template Status decode_sparse_chunk<double>(std::span<const std::byte>, size_t, double, double*);

}  // namespace commpress::codec::szp
