// Huffman-coded slabs of shaped szp-e payloads (shaped_huffman.hpp).
#include "codec/lossy/szp/shaped_huffman.hpp"

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "codec/lossless/zstd_contexts.hpp"
#include "codec/lossy/szp/canonical_huffman.hpp"
#include "codec/lossy/szp/interpolation_kernels_avx2.hpp"
#include "codec/lossy/szp/interpolation_kernels_avx512.hpp"
#include "codec/lossy/szp/interpolation_quantizer.hpp"
#include "codec/lossy/szp/interpolation_runs.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "codec/lossy/szp/slab_prediction.hpp"
#include "codec/lossy/szp/symbol_mask.hpp"
#include "codec/lossy/szp/zstd_stream.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp {

namespace {

// Values of a run predicted and quantized together, in arrays on the stack.
constexpr size_t kRunBlock = 512;
// The coding byte's flag: the slab's stream is one zstd frame.
constexpr uint8_t kZstd = 0x01;


struct SlabScratch {
  std::vector<uint16_t> syms;
  std::vector<std::byte> bits, stored[2];
  std::vector<uint64_t> count;
};

template <class T>
std::vector<T>& value_scratch(int which) {
  thread_local std::vector<T> v[2];
  return v[which];
}

// count[sym] for the symbols of syms[0..n), a chunk of 32 at a time: the symbol of the
// zero code (1, the most common one at every bound) counted by the chunk's mask of the
// others, which alone are counted one by one where they are few (at loose bounds nearly
// every chunk holds none or a handful); small symbols into four interleaved tables, so that
// a run of one symbol does not wait on its own last increment.
void count_symbols(const uint16_t* syms, size_t n, std::vector<uint64_t>& count) {
  constexpr size_t kSmall = 1024, kChunk = 32;
  constexpr uint16_t kCommon = 1;
  count.assign(huffman::kAlphabet, 0);
  std::vector<uint32_t> lanes(4 * kSmall, 0);
  auto one = [&](size_t lane, uint16_t sym) {
    if (sym < kSmall) ++lanes[lane * kSmall + sym];
    else ++count[sym];
  };
  uint64_t common = 0;
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    uint32_t others = differ_mask(syms + i, kCommon);
    const int k = std::popcount(others);
    if (k <= 8) {
      common += uint64_t(kChunk) - uint64_t(k);
      for (size_t lane = 0; others; others &= others - 1, lane = (lane + 1) & 3)
        one(lane, syms[i + size_t(std::countr_zero(others))]);
      continue;
    }
    for (size_t t = 0; t < kChunk; t += 4)
      for (size_t lane = 0; lane < 4; ++lane) one(lane, syms[i + t + lane]);
  }
  for (; i < n; ++i) one(0, syms[i]);
  count[kCommon] += common;
  for (size_t sym = 0; sym < kSmall; ++sym)
    count[sym] += uint64_t(lanes[sym]) + lanes[kSmall + sym] + lanes[2 * kSmall + sym] +
                  lanes[3 * kSmall + sym];
}

// The AVX-512 or AVX2 kernels of the runs of step 2 and 4 where they apply (float, a kind
// other than zero); they return how many of the m values from i0 they did, the portable path
// doing the rest.
#if defined(COMMPRESS_INTERPOLATION_KERNEL_LANES)
template <class T>
size_t quantize_strided(T* v, const T* x, size_t len, const InterpRun& r, size_t i0, size_t m,
                        T h, T inv, T accept, uint16_t* sym, bool keep) {
  if constexpr (std::is_same_v<T, float>) {
    if (r.kind == RunKind::zero) return 0;
    if (r.step == 2)
      return detail::quantize_strided<2>(v, x, len, r, i0, m, h, inv, accept, sym, keep);
    if (r.step == 4)
      return detail::quantize_strided<4>(v, x, len, r, i0, m, h, inv, accept, sym, keep);
  }
  return 0;
}

template <class T>
size_t reconstruct_strided(T* v, size_t len, const InterpRun& r, size_t i0, size_t m, T h,
                           const uint16_t* sym) {
  if constexpr (std::is_same_v<T, float>) {
    if (r.kind == RunKind::zero) return 0;
    if (r.step == 2) return detail::reconstruct_strided<2>(v, len, r, i0, m, h, sym);
    if (r.step == 4) return detail::reconstruct_strided<4>(v, len, r, i0, m, h, sym);
  }
  return 0;
}
#else
template <class T, class... Args>
size_t quantize_strided(Args&&...) {
  return 0;
}
template <class T, class... Args>
size_t reconstruct_strided(Args&&...) {
  return 0;
}
#endif

// Whether zstd's fast level shrinks the middle 64 KiB of the stream by 1/16 or more.
bool zstd_pays(const std::byte* stream, size_t n, std::vector<std::byte>& scratch) {
  constexpr size_t kSample = size_t{1} << 16;
  const size_t m = std::min(n, kSample);
  scratch.resize(m);
  uint8_t coding = 0;
  auto z = put_stream_at(stream + (n - m) / 2, m, kZstdFastLevel, scratch.data(), 1, coding);
  return z.ok() && coding && *z * 16 <= m * 15;
}

SlabScratch& slab_scratch() {
  thread_local SlabScratch s;
  return s;
}

Status bad(const std::string& why) {
  return {ErrorCode::corrupt_frame, "szp-e Huffman slab: " + why};
}

}  // namespace

size_t huffman_encoder_slab(size_t nz, size_t plane) {
  constexpr size_t kTarget = size_t{1} << 24;
  return std::min(nz, std::max<size_t>(1, (kTarget + plane - 1) / plane));
}

template <class T>
Status encode_huffman_slab(const T* x, const Box& b, size_t z0, size_t z1, double eb,
                           std::vector<std::byte>& out) {
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane(), len = slab.count();
  const LinearQuantizer<T> qz(eb);
  const LevelSteps<T> steps(qz.step());
  const T accept = qz.accept();
  SlabScratch& s = slab_scratch();
  std::vector<T>& rec = value_scratch<T>(0);
  std::vector<T>& kept = value_scratch<T>(1);  // values stored as they are, in visit order
  // (their codes' indices and values, as the runs come: each level plane by plane)
  thread_local std::vector<std::pair<size_t, T>> kept_at;
  rec.resize(len);
  kept.clear();
  kept_at.clear();
  s.syms.resize(len);
  const T* xs = x + base;
  // rec holds what predictions read: the reconstructions (or stored values) of the passes
  // done so far. Values come from xs; rec is not filled first, since a prediction reads
  // only positions of earlier passes. finite: no stored value so far is NaN or Inf, so
  // none that a prediction reads is (reconstructions are finite).
  bool finite = true;
  alignas(64) T pred[kRunBlock], val[kRunBlock], rc_or_val[kRunBlock];
  interpolation_runs(slab, [&](const InterpRun& r) {
    const int l = LevelSteps<T>::level(r.stride);
    const T h = steps.step[l], inv = steps.inv[l];
    // The x-pass of stride 1 is the last: nothing reads its reconstructions.
    const bool keep = !(r.stride == 1 && r.sd == 1 && r.kind == RunKind::row);
    prefetch_ahead(rec.data(), len, slab.plane(), r);
    prefetch_ahead(xs, len, slab.plane(), r);
    for (size_t b0 = 0; b0 < r.n; b0 += kRunBlock) {
      size_t i0 = b0, m = std::min(kRunBlock, r.n - b0);
      if (finite) {
        const size_t done = quantize_strided<T>(rec.data(), xs, len, r, i0, m, h, inv, accept,
                                                s.syms.data() + r.code + i0, keep);
        i0 += done;
        m -= done;
        if (!m) continue;
      }
      if (finite) predict_run<T, true>(rec.data(), r, i0, m, pred);
      else predict_run<T, false>(rec.data(), r, i0, m, pred);
      gather_run(xs, r, i0, m, val);
      uint16_t* sym = s.syms.data() + r.code + i0;
      const size_t refused = quantize_block(val, pred, m, h, inv, accept, sym, rc_or_val);
      scatter_run(rc_or_val, r, i0, m, rec.data());
      if (refused)
        for (size_t t = 0; t < m; ++t)
          if (sym[t] == 0) {
            kept_at.push_back({r.code + i0 + t, val[t]});
            finite &= bool(std::isfinite(val[t]));
          }
    }
  }, true, true);
  std::sort(kept_at.begin(), kept_at.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& k : kept_at) kept.push_back(k.second);
  count_symbols(s.syms.data(), len, s.count);
  const huffman::Encoder code(s.count.data());
  const size_t pieces = (len + kPieceSymbols - 1) / kPieceSymbols;
  // The table, the stream's header (filled in below) and the pieces' headers.
  const size_t start = out.size();
  out.resize(start + huffman::kMaxTableSize + kStreamHeaderSize + pieces * kPieceHeaderSize);
  const size_t stream_header = start + code.write_table(out.data() + start);
  const size_t piece_header = stream_header + kStreamHeaderSize;
  size_t pos = piece_header + pieces * kPieceHeaderSize;
  s.bits.resize(huffman::max_encoded_size(len) + pieces);
  size_t nbits = 0;
  // Each piece's stored values: the kept values' code indices (ascending) in its range.
  size_t kept_seen = 0;
  for (size_t p = 0; p < pieces; ++p) {
    const size_t first = p * kPieceSymbols, n = std::min(kPieceSymbols, len - first);
    const size_t bytes = code.encode(s.syms.data() + first, n, s.bits.data() + nbits);
    size_t own = 0;
    for (; kept_seen < kept_at.size() && kept_at[kept_seen].first < first + n; ++kept_seen) ++own;
    core::store_le<uint32_t>(out.data() + piece_header + p * kPieceHeaderSize, uint32_t(bytes));
    core::store_le<uint32_t>(out.data() + piece_header + p * kPieceHeaderSize + 4,
                             uint32_t(own));
    nbits += bytes;
  }
  out.resize(pos + nbits + kept.size() * sizeof(T));
  uint8_t coding = 0;
  // zstd's slower level only where the codes are nearly all the one-bit zero code (under
  // 9/8 bits a value: loose bounds on smooth data), whose long runs it finds and a fast
  // level misses; up to 2 bits a value level 1, which keeps nearly all of the gain at a
  // fraction of the time. Above that the codes are mostly close to their entropy, so zstd
  // runs only where a sample of the stream shrinks by 1/16 or more; what it saves below
  // that takes less time on a 1 Gbit/s link than zstd itself (docs/measured-choices.md).
  const bool dense = nbits * 64 < len * 9;
  const bool zstd = dense || nbits * 4 < len || zstd_pays(s.bits.data(), nbits, s.stored[0]);
  size_t stored = nbits;
  if (zstd) {
    auto z = put_stream_at(s.bits.data(), nbits, dense ? kZstdDenseLevel : kZstdFastLevel,
                           out.data() + pos, kZstd, coding);
    if (!z.ok()) return z.status();
    stored = *z;
  } else if (nbits) {
    std::memcpy(out.data() + pos, s.bits.data(), nbits);
  }
  out[stream_header] = std::byte(coding);
  core::store_le<uint64_t>(out.data() + stream_header + 1, uint64_t(stored));
  pos += stored;
  if (!kept.empty()) std::memcpy(out.data() + pos, kept.data(), kept.size() * sizeof(T));
  pos += kept.size() * sizeof(T);
  out.resize(pos);
  return {};
}

namespace {

// Where a slab's parts lie, from its table, stream header and piece headers.
struct SlabLayout {
  size_t table = 0;        // bytes of the table
  uint8_t coding = 0;
  uint64_t stored = 0;     // bytes of the stream as stored
  uint64_t codes = 0;      // bytes of the pieces' codes (the stream's content)
  uint64_t kept = 0;       // values stored as they are
  uint64_t size = 0;       // the whole slab
};

template <class T>
Result<SlabLayout> read_layout(std::span<const std::byte> rest, size_t values,
                               huffman::Decoder& table) {
  SlabLayout l;
  auto t = table.read_table(rest);
  if (!t.ok()) return t.status();
  l.table = *t;
  const uint64_t pieces = (values + kPieceSymbols - 1) / kPieceSymbols;
  if (rest.size() - l.table < kStreamHeaderSize ||
      (rest.size() - l.table - kStreamHeaderSize) / kPieceHeaderSize < pieces)
    return bad("ends inside its headers");
  const std::byte* h = rest.data() + l.table;
  l.coding = std::to_integer<uint8_t>(h[0]);
  if (l.coding & ~kZstd) return bad("coding byte " + std::to_string(l.coding));
  l.stored = core::load_le<uint64_t>(h + 1);
  for (uint64_t p = 0; p < pieces; ++p) {
    const std::byte* ph = h + kStreamHeaderSize + p * kPieceHeaderSize;
    const uint64_t n = std::min<uint64_t>(kPieceSymbols, values - p * kPieceSymbols);
    const uint64_t bytes = core::load_le<uint32_t>(ph), own = core::load_le<uint32_t>(ph + 4);
    if (own > n || bytes > huffman::max_encoded_size(n))
      return bad("a piece's header does not fit its " + std::to_string(n) + " values");
    l.codes += bytes;
    l.kept += own;
  }
  const uint64_t head = l.table + kStreamHeaderSize + pieces * kPieceHeaderSize;
  if (!(l.coding & kZstd) && l.stored != l.codes)
    return bad("stream of " + std::to_string(l.stored) + " bytes holds pieces of " +
               std::to_string(l.codes));
  if (l.stored > rest.size() - head || l.kept > (rest.size() - head - l.stored) / sizeof(T))
    return bad("overruns the payload");
  l.size = head + l.stored + l.kept * sizeof(T);
  return l;
}

}  // namespace

template <class T>
Result<size_t> huffman_slab_size(std::span<const std::byte> rest, size_t values) {
  huffman::Decoder table;
  auto l = read_layout<T>(rest, values, table);
  if (!l.ok()) return l.status();
  return size_t(l->size);
}

namespace {

// The pieces' codes one piece at a time, from the stored stream or through zstd, so that a
// decoder holds one piece of codes whatever the slab's size (a frame may claim a huge one).
class PieceCodes {
 public:
  // (a piece read through zstd lies in buffers[slot], so two can be held at once)
  PieceCodes(std::span<const std::byte> stored, bool zstd, std::vector<std::byte>* buffers)
      : stored_(stored), zstd_(zstd), buffers_(buffers) {}

  // Checks a zstd stream's frame (one, declaring `content` bytes) and starts reading it.
  Status open(uint64_t content) {
    if (!zstd_) return {};
    const unsigned long long declared = ZSTD_getFrameContentSize(stored_.data(), stored_.size());
    const size_t frame = ZSTD_findFrameCompressedSize(stored_.data(), stored_.size());
    if (declared != content || ZSTD_isError(frame) || frame != stored_.size())
      return bad("stream is not one zstd frame of its pieces' size");
    dctx_ = dctx();
    if (!dctx_) return {ErrorCode::capacity, "ZSTD_createDCtx failed (out of memory)"};
    ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);
    in_ = {stored_.data(), stored_.size(), 0};
    return {};
  }

  // The next `bytes` bytes of codes.
  Result<std::span<const std::byte>> next(size_t bytes, int slot) {
    if (!zstd_) {
      auto piece = stored_.subspan(at_, bytes);
      at_ += bytes;
      return piece;
    }
    std::vector<std::byte>& buffer = buffers_[slot];
    if (buffer.size() < bytes) buffer.resize(bytes);
    ZSTD_outBuffer out{buffer.data(), bytes, 0};
    while (out.pos < out.size) {
      const size_t before_in = in_.pos, before_out = out.pos;
      const size_t r = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(r)) return bad(std::string("stream: ") + ZSTD_getErrorName(r));
      if (out.pos < out.size && in_.pos == before_in && out.pos == before_out)
        return bad("stream ends before its pieces do");
    }
    return std::span<const std::byte>(buffer.data(), bytes);
  }

 private:
  // A context of its own: its window is capped (what szp-eh's encoder writes fits), which a
  // context shared with the zstd codecs must not be.
  static ZSTD_DCtx* dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, codec::detail::ZstdDCtxFree> ctx = [] {
      std::unique_ptr<ZSTD_DCtx, codec::detail::ZstdDCtxFree> c(ZSTD_createDCtx());
      if (c) ZSTD_DCtx_setParameter(c.get(), ZSTD_d_windowLogMax, kWindowLogMax);
      return c;
    }();
    return ctx.get();
  }
  static constexpr int kWindowLogMax = 23;

  std::span<const std::byte> stored_;
  bool zstd_;
  std::vector<std::byte>* buffers_;
  ZSTD_DCtx* dctx_ = nullptr;
  ZSTD_inBuffer in_{};
  size_t at_ = 0;
};

}  // namespace

template <class T>
Status decode_huffman_slab(std::span<const std::byte> bytes, const Box& b, size_t z0, size_t z1,
                           double eb, T* out, size_t whole_limit) {
  const Box slab{z1 - z0, b.ny, b.nx, z1 - z0};
  const size_t base = z0 * b.plane(), len = slab.count();
  huffman::Decoder table;
  auto l = read_layout<T>(bytes, len, table);
  if (!l.ok()) return l.status();
  if (l->size != bytes.size()) return bad("bytes after its stored values");
  SlabScratch& s = slab_scratch();
  const size_t pieces = (len + kPieceSymbols - 1) / kPieceSymbols;
  const size_t head = l->table + kStreamHeaderSize + pieces * kPieceHeaderSize;
  PieceCodes codes(bytes.subspan(head, l->stored), l->coding & kZstd, s.stored);
  COMMPRESS_RETURN_IF_ERROR(codes.open(l->codes));
  const std::byte* ph = bytes.data() + l->table + kStreamHeaderSize;
  // A slab of the size the encoder writes has its symbols decoded all at once (2 bytes a
  // value, where the output takes 4 or 8) and is predicted level by level plane by plane,
  // whose runs take the symbols out of order. A larger one, which only a forged frame or
  // another encoder makes, is predicted in the visit order with its symbols decoded as the
  // runs come to them, so that a decoder holds two pieces whatever a frame claims. The
  // indices of the stored values' symbols, ascending, give each its place among them.
  const bool whole = len <= whole_limit;
  s.syms.resize(whole ? len : 2 * kPieceSymbols + kRunBlock);
  thread_local std::vector<size_t> zeros;
  zeros.clear();
  // Pieces p and p + 1 (where there is one) into dst, decoded together (decode_pair), each
  // checked against its header's count of stored values before any is used; errors in the
  // order one piece at a time gives them.
  auto piece_n = [&](size_t p) { return std::min(kPieceSymbols, len - p * kPieceSymbols); };
  auto piece_codes = [&](size_t p) {
    return codes.next(core::load_le<uint32_t>(ph + p * kPieceHeaderSize), int(p & 1));
  };
  auto check_piece = [&](size_t p, const uint16_t* dst) -> Status {
    const size_t n = piece_n(p), own = core::load_le<uint32_t>(ph + p * kPieceHeaderSize + 4);
    if (size_t(std::count(dst, dst + n, uint16_t(0))) != own)
      return bad("a piece's stored values do not match its symbols");
    if (own)
      for (size_t t = 0; t < n; ++t)
        if (dst[t] == 0) zeros.push_back(p * kPieceSymbols + t);
    return {};
  };
  auto decode_pieces = [&](size_t p, uint16_t* dst) -> Status {
    auto a = piece_codes(p);
    if (!a.ok()) return a.status();
    if (p + 1 == pieces) {
      COMMPRESS_RETURN_IF_ERROR(table.decode(*a, piece_n(p), dst));
      return check_piece(p, dst);
    }
    auto b = piece_codes(p + 1);
    if (!b.ok()) {
      COMMPRESS_RETURN_IF_ERROR(table.decode(*a, piece_n(p), dst));
      COMMPRESS_RETURN_IF_ERROR(check_piece(p, dst));
      return b.status();
    }
    uint16_t* dst_b = dst + piece_n(p);
    auto [sa, sb] = table.decode_pair(*a, piece_n(p), dst, *b, piece_n(p + 1), dst_b);
    COMMPRESS_RETURN_IF_ERROR(sa);
    COMMPRESS_RETURN_IF_ERROR(check_piece(p, dst));
    COMMPRESS_RETURN_IF_ERROR(sb);
    return check_piece(p + 1, dst_b);
  };
  size_t next_piece = 0;
  if (whole)
    for (; next_piece < pieces; next_piece += 2)
      COMMPRESS_RETURN_IF_ERROR(decode_pieces(next_piece, s.syms.data() + next_piece * kPieceSymbols));
  // Otherwise syms holds the symbols [first, loaded) of the pieces decoded so far; the runs,
  // in visit order, take them from the front.
  size_t first = 0, loaded = whole ? len : 0;
  auto symbols = [&](size_t code, size_t m) -> Result<const uint16_t*> {
    if (whole) return s.syms.data() + code;
    if (code + m > loaded) {
      std::copy(s.syms.begin() + ptrdiff_t(code - first),
                s.syms.begin() + ptrdiff_t(loaded - first), s.syms.begin());
      first = code;
      COMMPRESS_RETURN_IF_ERROR(decode_pieces(next_piece, s.syms.data() + (loaded - first)));
      loaded = std::min(len, (next_piece + 2) * kPieceSymbols);
      next_piece += 2;
    }
    return s.syms.data() + (code - first);
  };
  const std::byte* kept = bytes.data() + head + l->stored;
  bool finite = true;  // (the stored values are the only ones that can be NaN or Inf)
  for (size_t k = 0; k < l->kept; ++k) finite &= std::isfinite(core::load_le<T>(kept + sizeof(T) * k));
  const LevelSteps<T> steps(LinearQuantizer<T>(eb).step());
  T* v = out + base;
  Status status;
  alignas(64) T pred[kRunBlock], val[kRunBlock];
  interpolation_runs(slab, [&](const InterpRun& r) {
    if (!status.ok()) return;  // the rest of the slab is skipped
    const T h = steps.step[LevelSteps<T>::level(r.stride)];
    prefetch_ahead(v, len, slab.plane(), r);
    for (size_t b0 = 0; b0 < r.n; b0 += kRunBlock) {
      size_t i0 = b0, m = std::min(kRunBlock, r.n - b0);
      auto got = symbols(r.code + i0, m);
      if (!got.ok()) {
        status = got.status();
        return;
      }
      const uint16_t* sym = *got;
      if (finite) {
        const size_t done = reconstruct_strided<T>(v, len, r, i0, m, h, sym);
        i0 += done;
        m -= done;
        sym += done;
        if (!m) continue;
      }
      const size_t at = r.code + i0;
      if (finite) predict_run<T, true>(v, r, i0, m, pred);
      else predict_run<T, false>(v, r, i0, m, pred);
      if (reconstruct_block(pred, sym, m, h, val)) {
        size_t k = size_t(std::lower_bound(zeros.begin(), zeros.end(), at) - zeros.begin());
        for (size_t t = 0; t < m; ++t)
          if (sym[t] == 0) val[t] = core::load_le<T>(kept + sizeof(T) * k++);
      }
      scatter_run(val, r, i0, m, v);
    }
  }, whole, true);
  return status;
}

template Status encode_huffman_slab<float>(const float*, const Box&, size_t, size_t, double,
                                           std::vector<std::byte>&);
template Status encode_huffman_slab<double>(const double*, const Box&, size_t, size_t, double,
                                            std::vector<std::byte>&);
template Result<size_t> huffman_slab_size<float>(std::span<const std::byte>, size_t);
template Result<size_t> huffman_slab_size<double>(std::span<const std::byte>, size_t);
template Status decode_huffman_slab<float>(std::span<const std::byte>, const Box&, size_t, size_t,
                                           double, float*, size_t);
template Status decode_huffman_slab<double>(std::span<const std::byte>, const Box&, size_t,
                                            size_t, double, double*, size_t);

}  // namespace commpress::codec::szp
