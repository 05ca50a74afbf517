// Huffman-coded slabs of shaped szp-e payloads (shaped_huffman.hpp).
#include "codec/lossy/szp/shaped_huffman.hpp"

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "codec/lossless/zstd_contexts.hpp"
#include "codec/lossy/szp/canonical_huffman.hpp"
#include "codec/lossy/szp/linear_quantizer.hpp"
#include "codec/lossy/szp/slab_prediction.hpp"
#include "codec/lossy/szp/zstd_stream.hpp"
#include "core/byte_io.hpp"

namespace commpress::codec::szp {

namespace {

// Codes in (-kRadius, kRadius) are symbols 1 + zigzag(k); symbol 0 is a value stored as it is.
constexpr int kRadius = 1 << 15;
// The coding byte's flag: the slab's stream is one zstd frame.
constexpr uint8_t kZstd = 0x01;

inline uint16_t symbol_of(int64_t k) {
  return uint16_t(1 + (k >= 0 ? uint64_t(k) << 1 : (uint64_t(-k) << 1) - 1));
}
inline int64_t code_of(uint16_t sym) {
  const uint64_t z = uint64_t(sym) - 1;
  return (z & 1) ? -int64_t((z + 1) >> 1) : int64_t(z >> 1);
}

struct SlabScratch {
  std::vector<uint16_t> syms;
  std::vector<std::byte> bits, stored;
  std::vector<uint64_t> count;
};

template <class T>
std::vector<T>& value_scratch(int which) {
  thread_local std::vector<T> v[2];
  return v[which];
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
  rec.resize(len);
  kept.clear();
  s.syms.resize(len);
  size_t i = 0;
  visit<T>(Predictor::interpolation, slab, [&](size_t j, auto predict, size_t stride) {
    const int l = LevelSteps<T>::level(stride);
    const T v = x[base + j];
    const T pr = predict(rec.data());
    const T y = (v - pr) * steps.inv[l];
    const bool in_range = std::fabs(y) < T(kRadius - 1);  // false for NaN
    const T q = in_range ? std::nearbyint(y) : T(0);
    const T r = pr + q * steps.step[l];
    if (in_range && std::fabs(v - r) <= accept) {
      s.syms[i++] = symbol_of(int64_t(q));
      rec[j] = r;
    } else {
      s.syms[i++] = 0;
      kept.push_back(v);
      rec[j] = v;
    }
  });
  s.count.assign(huffman::kAlphabet, 0);
  for (uint16_t sym : s.syms) ++s.count[sym];
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
  for (size_t p = 0; p < pieces; ++p) {
    const size_t first = p * kPieceSymbols, n = std::min(kPieceSymbols, len - first);
    const size_t bytes = code.encode(s.syms.data() + first, n, s.bits.data() + nbits);
    const size_t own = size_t(std::count(s.syms.begin() + ptrdiff_t(first),
                                         s.syms.begin() + ptrdiff_t(first + n), uint16_t(0)));
    core::store_le<uint32_t>(out.data() + piece_header + p * kPieceHeaderSize, uint32_t(bytes));
    core::store_le<uint32_t>(out.data() + piece_header + p * kPieceHeaderSize + 4,
                             uint32_t(own));
    nbits += bytes;
  }
  out.resize(pos + nbits + kept.size() * sizeof(T));
  uint8_t coding = 0;
  auto stored = put_stream(s.bits.data(), nbits, len * sizeof(T), out.data() + pos, kZstd, coding);
  if (!stored.ok()) return stored.status();
  out[stream_header] = std::byte(coding);
  core::store_le<uint64_t>(out.data() + stream_header + 1, uint64_t(*stored));
  pos += *stored;
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
// decoder holds one piece whatever the slab's size (a frame may claim a huge one).
class PieceCodes {
 public:
  PieceCodes(std::span<const std::byte> stored, bool zstd, std::vector<std::byte>& buffer)
      : stored_(stored), zstd_(zstd), buffer_(buffer) {}

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
  Result<std::span<const std::byte>> next(size_t bytes) {
    if (!zstd_) {
      auto piece = stored_.subspan(at_, bytes);
      at_ += bytes;
      return piece;
    }
    if (buffer_.size() < bytes) buffer_.resize(bytes);
    ZSTD_outBuffer out{buffer_.data(), bytes, 0};
    while (out.pos < out.size) {
      const size_t before_in = in_.pos, before_out = out.pos;
      const size_t r = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(r)) return bad(std::string("stream: ") + ZSTD_getErrorName(r));
      if (out.pos < out.size && in_.pos == before_in && out.pos == before_out)
        return bad("stream ends before its pieces do");
    }
    return std::span<const std::byte>(buffer_.data(), bytes);
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
  std::vector<std::byte>& buffer_;
  ZSTD_DCtx* dctx_ = nullptr;
  ZSTD_inBuffer in_{};
  size_t at_ = 0;
};

}  // namespace

template <class T>
Status decode_huffman_slab(std::span<const std::byte> bytes, const Box& b, size_t z0, size_t z1,
                           double eb, T* out) {
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
  s.syms.resize(std::min(len, kPieceSymbols));
  // Piece p's symbols, checked against its header's count of stored values before any is used.
  auto load_piece = [&](size_t p) -> Status {
    const size_t n = std::min(kPieceSymbols, len - p * kPieceSymbols);
    const size_t nbytes = core::load_le<uint32_t>(ph + p * kPieceHeaderSize);
    const size_t own = core::load_le<uint32_t>(ph + p * kPieceHeaderSize + 4);
    auto piece = codes.next(nbytes);
    if (!piece.ok()) return piece.status();
    COMMPRESS_RETURN_IF_ERROR(table.decode(*piece, n, s.syms.data()));
    if (size_t(std::count(s.syms.begin(), s.syms.begin() + ptrdiff_t(n), uint16_t(0))) != own)
      return bad("a piece's stored values do not match its symbols");
    return {};
  };
  const std::byte* kept = bytes.data() + head + l->stored;
  const LevelSteps<T> steps(LinearQuantizer<T>(eb).step());
  T* v = out + base;
  size_t i = 0, k = 0;
  Status status;
  visit<T>(Predictor::interpolation, slab, [&](size_t j, auto predict, size_t stride) {
    const size_t at = i++ % kPieceSymbols;
    if (at == 0 && status.ok()) status = load_piece((i - 1) / kPieceSymbols);
    if (!status.ok()) return;  // the rest of the slab is skipped
    const uint16_t sym = s.syms[at];
    v[j] = sym == 0 ? core::load_le<T>(kept + sizeof(T) * k++)
                    : predict(v) + T(code_of(sym)) * steps.step[LevelSteps<T>::level(stride)];
  });
  return status;
}

template Status encode_huffman_slab<float>(const float*, const Box&, size_t, size_t, double,
                                           std::vector<std::byte>&);
template Status encode_huffman_slab<double>(const double*, const Box&, size_t, size_t, double,
                                            std::vector<std::byte>&);
template Result<size_t> huffman_slab_size<float>(std::span<const std::byte>, size_t);
template Result<size_t> huffman_slab_size<double>(std::span<const std::byte>, size_t);
template Status decode_huffman_slab<float>(std::span<const std::byte>, const Box&, size_t, size_t,
                                           double, float*);
template Status decode_huffman_slab<double>(std::span<const std::byte>, const Box&, size_t,
                                            size_t, double, double*);

}  // namespace commpress::codec::szp
