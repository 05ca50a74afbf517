// "szp-e": szp's blocks for ratio at loose bounds. Chunks of 65536 values, inside each the
// blocks' prediction runs on from block to block (order 1 or 2, the half step with hysteresis
// quantization where the data drift slowly), zero blocks collapse into runs, and the header
// runs and block bodies go through zstd where that is smaller. Chunks are independent: they
// are coded in parallel and the bytes never depend on the thread count. Given a shape of two
// or more dimensions, the chunks instead hold the codes of an N-D interpolation prediction
// over it (a shaped payload; slabs of planes are predicted, and decoded, in parallel).
// "szp-eh" is the same codec (one id, one decoder for both) whose shaped payloads code those
// codes with Huffman and zstd instead of szp blocks (shaped_huffman.hpp): it is kept apart
// from "szp-e" so that szp-e's frames stay byte for byte what they were.
// Payload layout: docs/format/szp-e.md.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codec/format/count_fits.hpp"
#include "codec/lossy/szp/block_driver.hpp"
#include "codec/lossy/szp/entropy_chunk.hpp"
#include "codec/lossy/szp/shaped_huffman.hpp"
#include "codec/lossy/szp/shaped_prefix.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec {
namespace {

using szp::chunk_count;
using szp::kChunkValues;

size_t chunk_len(size_t n, size_t c) { return std::min(kChunkValues, n - c * kChunkValues); }

int team_for(size_t chunks) {
  return int(std::clamp<size_t>(chunks, 1, size_t(std::max(1, omp_get_max_threads()))));
}

class SzpEntropyCodec final : public Codec {
 public:
  explicit SzpEntropyCodec(bool huffman_shaped) : huffman_shaped_(huffman_shaped) {}
  CodecId id() const override { return CodecId::szp_e; }
  std::string_view name() const override { return huffman_shaped_ ? "szp-eh" : "szp-e"; }
  std::string_view description() const override {
    return huffman_shaped_
               ? "szp-e with entropy-coded layouts: sparse residual events where few "
                 "integers move, Huffman-coded interpolation codes given a shape"
               : "szp blocks with chained prediction, runs of zero blocks and a zstd stage";
  }
  uint32_t param() const override { return huffman_shaped_ ? 1 : 0; }
  bool lossy() const override { return true; }
  bool supports(Dtype d) const override { return d == Dtype::f32 || d == Dtype::f64; }

  size_t max_payload(size_t n, Dtype d) const override {
    // A shaped payload is a prefix and the same chunks as a flat one.
    return szp::kMaxShapedPrefix +
           (d == Dtype::f64 ? max_payload_as<double>(n) : max_payload_as<float>(n));
  }

  Result<size_t> encode(const void* data, size_t n, Dtype d, double abs_bound,
                        std::span<std::byte> out, Workspace& ws) const override {
    if (d == Dtype::f64)
      return encode_as(static_cast<const double*>(data), n, abs_bound, out, ws, huffman_shaped_);
    return encode_as(static_cast<const float*>(data), n, abs_bound, out, ws, huffman_shaped_);
  }

  Result<size_t> encode_shaped(const void* data, std::span<const uint64_t> shape, size_t n,
                               Dtype d, double abs_bound, std::span<std::byte> out,
                               Workspace& ws) const override {
    auto prefix = szp::shaped_prefix_for(
        shape, huffman_shaped_ ? szp::kShapedHuffmanTag : szp::kShapedTag);
    // Exact frames are all zero and raw blocks, whatever the prediction: coded flat.
    if (!prefix || !(abs_bound > 0)) return encode(data, n, d, abs_bound, out, ws);
    if (huffman_shaped_) {
      auto r = d == Dtype::f64 ? encode_huffman_as(static_cast<const double*>(data), *prefix,
                                                   abs_bound, out)
                               : encode_huffman_as(static_cast<const float*>(data), *prefix,
                                                   abs_bound, out);
      // Past the flat payload's worst case (values the bound refuses, each with a long
      // code): the flat payload, which max_payload covers.
      if (r.ok() || r.status().code() != ErrorCode::capacity) return r;
      return encode(data, n, d, abs_bound, out, ws);
    }
    if (d == Dtype::f64)
      return encode_shaped_as(static_cast<const double*>(data), n, *prefix, abs_bound, out, ws);
    return encode_shaped_as(static_cast<const float*>(data), n, *prefix, abs_bound, out, ws);
  }

  // Every chunk has at least its header (and a shaped payload its prefix).
  Status check_count_fits(std::span<const std::byte> payload,
                          const FrameInfo& info) const override {
    size_t prefix = 0;
    if (is_shaped(payload)) {
      auto p = szp::read_shaped_prefix(payload, info.count);
      if (!p.ok()) return p.status();
      prefix = p->size();
      if (p->tag == szp::kShapedHuffmanTag) {
        const szp::Box& b = p->box;
        const uint64_t full = b.nz / b.slab, rest = b.nz % b.slab;
        const uint64_t least = prefix + full * szp::min_huffman_slab_size(b.slab * b.plane()) +
                               (rest ? szp::min_huffman_slab_size(rest * b.plane()) : 0);
        return detail::require_payload(payload.size(), least, info, name());
      }
    }
    return detail::require_payload(
        payload.size(), prefix + chunk_count(info.count) * szp::kChunkHeaderSize, info, name());
  }

  Status decode(std::span<const std::byte> payload, const FrameInfo& info, void* out,
                Workspace& ws) const override {
    if (!(info.abs_bound >= 0) || !std::isfinite(info.abs_bound))
      return {ErrorCode::corrupt_frame, "szp-e frame needs a finite absolute bound >= 0, got " +
                                            std::to_string(info.abs_bound)};
    if (info.dtype == Dtype::f64)
      return decode_as(payload, info, static_cast<double*>(out), ws);
    return decode_as(payload, info, static_cast<float*>(out), ws);
  }

 private:
  template <class T>
  static size_t max_payload_as(size_t n) {
    const size_t full = n / kChunkValues, tail = n % kChunkValues;
    return full * szp::max_chunk_size<T>(kChunkValues) +
           (tail ? szp::max_chunk_size<T>(tail) : 0);
  }

  static bool is_shaped(std::span<const std::byte> payload) {
    if (payload.empty()) return false;
    const uint8_t tag = std::to_integer<uint8_t>(payload[0]);
    return tag == szp::kShapedTag || tag == szp::kShapedHuffmanTag;
  }

  template <class T>
  static Result<size_t> encode_as(const T* x, size_t n, double eb, std::span<std::byte> out,
                                  Workspace& ws, bool sparse) {
    return encode_chunks<T>(n, out, ws, [&](size_t c, std::byte* dst) {
      return szp::encode_chunk(x + c * kChunkValues, chunk_len(n, c), eb, dst, sparse);
    });
  }

  // Predicts and quantizes slab by slab (in parallel), then codes the chunks as encode_as does.
  template <class T>
  static Result<size_t> encode_shaped_as(const T* x, size_t n, const szp::ShapedPrefix& prefix,
                                         double eb, std::span<std::byte> out, Workspace& ws) {
    using Int = szp::IntOf<T>;
    const szp::Box& box = prefix.box;
    // The codes and, behind them, the values in code order (Int and T have one size).
    Int* k = szp::workspace_array<Int>(ws, 2, 2 * n);
    uint8_t* fail = szp::workspace_array<uint8_t>(ws, 3, szp::block_count(n));
    if (!k || !fail) return Status{ErrorCode::capacity, "out of memory for szp-e's codes"};
    T* xs = reinterpret_cast<T*>(k + n);
    const szp::LinearQuantizer<T> qz(eb);
    const size_t slabs = box.slabs();
#pragma omp parallel num_threads(team_for(slabs))
    {
      std::vector<T> rec;
      std::vector<uint8_t> bad;
#pragma omp for schedule(static)
      for (size_t sl = 0; sl < slabs; ++sl)
        szp::encode_slab(prefix.predictor, x, box, sl * box.slab,
                         std::min(box.nz, (sl + 1) * box.slab), qz, k, xs, fail, rec, bad);
    }
    const size_t head = szp::write_shaped_prefix(prefix, out.data());
    auto body = encode_chunks<T>(n, out.subspan(head), ws, [&](size_t c, std::byte* dst) {
      return szp::encode_shaped_chunk(xs, k, fail, c * kChunkValues, chunk_len(n, c), dst);
    });
    if (!body.ok()) return body.status();
    return head + *body;
  }

  // Slab by slab (in parallel) into their own buffers, then behind the prefix in order;
  // capacity when they do not fit in out.
  template <class T>
  static Result<size_t> encode_huffman_as(const T* x, const szp::ShapedPrefix& prefix,
                                          double eb, std::span<std::byte> out) {
    const szp::Box& box = prefix.box;
    const size_t slabs = box.slabs();
    std::vector<std::vector<std::byte>> bytes(slabs);
    Status status;
#pragma omp parallel for schedule(static) num_threads(team_for(slabs))
    for (size_t sl = 0; sl < slabs; ++sl) {
      Status st = szp::encode_huffman_slab(x, box, sl * box.slab,
                                           std::min(box.nz, (sl + 1) * box.slab), eb, bytes[sl]);
      if (!st.ok()) {
#pragma omp critical(szp_eh_encode_status)
        if (status.ok()) status = st;
      }
    }
    if (!status.ok()) return status;
    size_t total = prefix.size();
    for (const auto& b : bytes) total += b.size();
    if (total > out.size()) return Status{ErrorCode::capacity, "szp-eh shaped payload too large"};
    size_t pos = szp::write_shaped_prefix(prefix, out.data());
    for (const auto& b : bytes) {
      std::memcpy(out.data() + pos, b.data(), b.size());
      pos += b.size();
    }
    return pos;
  }

  // Codes chunk c with encode(c, dst) for every chunk, in parallel, into out in chunk order.
  template <class T, class EncodeChunk>
  static Result<size_t> encode_chunks(size_t n, std::span<std::byte> out, Workspace& ws,
                                      EncodeChunk encode) {
    const size_t chunks = chunk_count(n);
    const int threads = team_for(chunks);
    if (threads <= 1) {
      size_t pos = 0;
      for (size_t c = 0; c < chunks; ++c) {
        auto s = encode(c, out.data() + pos);
        if (!s.ok()) return s.status();
        pos += *s;
      }
      return pos;
    }
    // As szp's block driver: thread 0 writes in place, the others into scratch at their
    // worst-case offsets, copied behind their predecessors once all sizes are known.
    const size_t room = szp::max_chunk_size<T>(kChunkValues);
    std::byte* scratch = szp::workspace_array<std::byte>(
        ws, 0, (chunks - szp::chunk_begin(chunks, size_t(threads), 1)) * room);
    size_t* sizes = szp::workspace_array<size_t>(ws, 1, size_t(threads) + 1);
    if (!scratch || !sizes)
      return Status{ErrorCode::capacity, "out of memory for szp-e encoder scratch"};
    Status status;
    size_t total = 0;
#pragma omp parallel num_threads(threads)
    {
      const size_t team = size_t(omp_get_num_threads()), t = size_t(omp_get_thread_num());
      const size_t lo = szp::chunk_begin(chunks, team, t), hi = szp::chunk_begin(chunks, team, t + 1);
      const size_t first = szp::chunk_begin(chunks, team, 1);
      std::byte* dst = t == 0 ? out.data() : scratch + (lo - first) * room;
      size_t pos = 0;
      Status mine;
      for (size_t c = lo; c < hi && mine.ok(); ++c) {
        auto s = encode(c, dst + pos);
        if (s.ok()) pos += *s;
        else mine = s.status();
      }
      sizes[t] = pos;
      if (!mine.ok()) {
#pragma omp critical(szp_e_encode_status)
        if (status.ok()) status = mine;
      }
#pragma omp barrier
#pragma omp single
      {
        size_t acc = 0;
        for (size_t i = 0; i < team; ++i) {
          const size_t s = sizes[i];
          sizes[i] = acc;
          acc += s;
        }
        sizes[team] = acc;
        total = acc;
      }
      if (status.ok() && t > 0)
        std::memmove(out.data() + sizes[t], dst, sizes[t + 1] - sizes[t]);
    }
    if (!status.ok()) return status;
    return total;
  }

  // The chunks' offsets in payload (starts[0..chunks]), checked to fill it exactly.
  static Status chunk_starts(std::span<const std::byte> payload, size_t chunks,
                             uint64_t* starts) {
    uint64_t pos = 0;
    for (size_t c = 0; c < chunks; ++c) {
      starts[c] = pos;
      auto s = szp::chunk_size_at(payload.subspan(pos));
      if (!s.ok()) return s.status();
      pos += *s;
    }
    starts[chunks] = pos;
    if (pos != payload.size())
      return {ErrorCode::corrupt_frame, "szp-e chunks end " + std::to_string(payload.size() - pos) +
                                            " bytes before the payload does"};
    return {};
  }

  // Runs decode(c, chunk bytes) over every chunk in parallel; the first bad chunk's error.
  template <class DecodeChunk>
  static Status decode_chunks(std::span<const std::byte> payload, size_t chunks,
                              const uint64_t* starts, DecodeChunk decode) {
    Status status;
    size_t failed = chunks;
#pragma omp parallel for schedule(static) num_threads(team_for(chunks))
    for (size_t c = 0; c < chunks; ++c) {
      Status st = decode(c, payload.subspan(starts[c], starts[c + 1] - starts[c]));
      if (!st.ok()) {
#pragma omp critical(szp_e_decode_status)
        if (c < failed) {  // the first bad chunk's error, whatever the team
          failed = c;
          status = st;
        }
      }
    }
    return status;
  }

  template <class T>
  static Status decode_as(std::span<const std::byte> payload, const FrameInfo& info, T* out,
                          Workspace& ws) {
    const size_t n = info.count, chunks = chunk_count(n);
    if (chunks == 0) {
      if (!payload.empty())
        return {ErrorCode::corrupt_frame, "szp-e payload of an empty array must be empty"};
      return {};
    }
    if (is_shaped(payload)) return decode_shaped_as(payload, info, out, ws);
    uint64_t* starts = szp::workspace_array<uint64_t>(ws, 1, chunks + 1);
    if (!starts) return {ErrorCode::capacity, "out of memory for szp-e decoder scratch"};
    COMMPRESS_RETURN_IF_ERROR(chunk_starts(payload, chunks, starts));
    return decode_chunks(payload, chunks, starts, [&](size_t c, std::span<const std::byte> b) {
      return szp::decode_chunk(b, chunk_len(n, c), info.abs_bound, out + c * kChunkValues);
    });
  }

  // Codes chunk by chunk, then the values slab by slab (both in parallel).
  template <class T>
  static Status decode_shaped_as(std::span<const std::byte> payload, const FrameInfo& info,
                                 T* out, Workspace& ws) {
    using Int = szp::IntOf<T>;
    const size_t n = info.count, chunks = chunk_count(n), nb = szp::block_count(n);
    auto prefix = szp::read_shaped_prefix(payload, n);
    if (!prefix.ok()) return prefix.status();
    if (!(info.abs_bound > 0))
      return {ErrorCode::corrupt_frame, "szp-e shaped payload in a frame of bound 0"};
    const auto body = payload.subspan(prefix->size());
    if (prefix->tag == szp::kShapedHuffmanTag)
      return decode_huffman_as(body, prefix->box, info.abs_bound, out, ws);
    uint64_t* starts = szp::workspace_array<uint64_t>(ws, 1, chunks + 1);
    Int* qr = szp::workspace_array<Int>(ws, 2, 2 * n);  // codes, then raw values
    T* xs = reinterpret_cast<T*>(qr + n);
    uint8_t* raw = szp::workspace_array<uint8_t>(ws, 3, nb);
    if (!starts || !qr || !raw)
      return {ErrorCode::capacity, "out of memory for szp-e decoder scratch"};
    COMMPRESS_RETURN_IF_ERROR(chunk_starts(body, chunks, starts));
    COMMPRESS_RETURN_IF_ERROR(
        decode_chunks(body, chunks, starts, [&](size_t c, std::span<const std::byte> b) {
          return szp::decode_shaped_chunk(b, chunk_len(n, c), info.abs_bound, c * kChunkValues,
                                           qr, raw, xs);
        }));
    const T step = szp::LinearQuantizer<T>(info.abs_bound).step();
    const szp::Box& box = prefix->box;
    const size_t slabs = box.slabs();
#pragma omp parallel for schedule(static) num_threads(team_for(slabs))
    for (size_t sl = 0; sl < slabs; ++sl)
      szp::decode_slab(prefix->predictor, qr, xs, box, sl * box.slab,
                       std::min(box.nz, (sl + 1) * box.slab), raw, step, out);
    return {};
  }

  // The slabs' extents (each checked to lie in the payload, together filling it), then the
  // slabs decoded in parallel.
  template <class T>
  static Status decode_huffman_as(std::span<const std::byte> body, const szp::Box& box,
                                  double eb, T* out, Workspace& ws) {
    const size_t slabs = box.slabs();
    uint64_t* starts = szp::workspace_array<uint64_t>(ws, 1, slabs + 1);
    if (!starts) return {ErrorCode::capacity, "out of memory for szp-eh decoder scratch"};
    uint64_t pos = 0;
    for (size_t sl = 0; sl < slabs; ++sl) {
      starts[sl] = pos;
      const size_t planes = std::min(box.nz, (sl + 1) * box.slab) - sl * box.slab;
      auto size = szp::huffman_slab_size<T>(body.subspan(pos), planes * box.plane());
      if (!size.ok()) return size.status();
      pos += *size;
    }
    starts[slabs] = pos;
    if (pos != body.size())
      return {ErrorCode::corrupt_frame, "szp-e Huffman slabs end " +
                                            std::to_string(body.size() - pos) +
                                            " bytes before the payload does"};
    Status status;
    size_t failed = slabs;
#pragma omp parallel for schedule(static) num_threads(team_for(slabs))
    for (size_t sl = 0; sl < slabs; ++sl) {
      Status st = szp::decode_huffman_slab(body.subspan(starts[sl], starts[sl + 1] - starts[sl]),
                                           box, sl * box.slab,
                                           std::min(box.nz, (sl + 1) * box.slab), eb, out);
      if (!st.ok()) {
#pragma omp critical(szp_eh_decode_status)
        if (sl < failed) {
          failed = sl;
          status = st;
        }
      }
    }
    return status;
  }

  bool huffman_shaped_;
};

}  // namespace

COMMPRESS_REGISTER_CODEC(szp_e, std::make_unique<SzpEntropyCodec>(false));
COMMPRESS_REGISTER_CODEC(szp_eh, std::make_unique<SzpEntropyCodec>(true));

}  // namespace commpress::codec
