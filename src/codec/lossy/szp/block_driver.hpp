// Runs a per-block encoder or decoder over a whole szp payload with OpenMP. Blocks are coded
// independently, so threads take contiguous chunks of blocks; the encoder then compacts the
// chunks in order and the decoder finds each chunk's start by a prefix sum over the header
// bytes. The bytes produced never depend on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>

#include "codec/format/count_fits.hpp"
#include "codec/lossy/szp/block_header.hpp"
#include "codec/lossy/szp/szp_block.hpp"
#include "commpress/codec.hpp"

namespace commpress::codec::szp {

// Below this many blocks per thread, starting a team costs more than it saves.
inline constexpr size_t kMinBlocksPerThread = 2048;

inline int pick_threads(size_t nblocks) {
  size_t useful = nblocks / kMinBlocksPerThread;
  return int(std::clamp<size_t>(useful, 1, size_t(std::max(1, omp_get_max_threads()))));
}

// First block of chunk c when nb blocks are split into `chunks` parts.
inline size_t chunk_begin(size_t nb, size_t chunks, size_t c) { return nb * c / chunks; }

// One header byte per block and no body for a zero block: all any n values need.
inline Status check_count_fits(std::span<const std::byte> payload, const FrameInfo& info,
                               std::string_view codec) {
  return codec::detail::require_payload(payload.size(), block_count(info.count), info, codec);
}

// Scratch words from the workspace, grown only when too small (so a warm path allocates
// nothing). Returns nullptr when memory runs out.
template <class W>
W* workspace_array(Workspace& ws, size_t slot, size_t count) {
  std::vector<std::byte>& buf = ws.buffer(slot);
  size_t bytes = count * sizeof(W) + alignof(W);
  try {
    if (buf.size() < bytes) buf.resize(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  void* p = buf.data();
  size_t space = buf.size();
  return static_cast<W*>(std::align(alignof(W), count * sizeof(W), p, space));
}

// encode_block(const T* x, size_t valid, uint8_t& header, std::byte* body) -> body bytes.
// Writes block headers into block_range's own header slots and bodies consecutively from dst.
template <class T, class EncodeBlock>
size_t encode_range(const T* x, size_t n, size_t lo, size_t hi, uint8_t* headers,
                    std::byte* dst, const EncodeBlock& encode_block) {
  size_t pos = 0;
  for (size_t b = lo; b < hi; ++b)
    pos += encode_block(x + b * kBlockValues, valid_in_block(n, b), headers[b], dst + pos);
  return pos;
}

// out has room for max_payload_size<T>(n, mode) bytes. Returns payload bytes written.
template <class T, class EncodeBlock>
Result<size_t> encode_payload(const T* x, size_t n, Mode mode, std::span<std::byte> out,
                              Workspace& ws, const EncodeBlock& encode_block) {
  const size_t nb = block_count(n);
  uint8_t* headers = reinterpret_cast<uint8_t*>(out.data());
  std::byte* bodies = out.data() + nb;
  const int threads = pick_threads(nb);
  if (threads <= 1) return nb + encode_range(x, n, 0, nb, headers, bodies, encode_block);

  // Each chunk writes at its worst-case offset in out (room the caller already holds), and
  // the chunks after the first are moved behind their predecessors once all sizes are known:
  // no scratch to allocate or clear, and out's pages past the frame are touched only where a
  // chunk lands.
  const size_t max_body = max_body_size<T>(mode);
  size_t* sizes = workspace_array<size_t>(ws, 1, size_t(threads) + 1);
  if (!sizes) return Status{ErrorCode::capacity, "out of memory for szp encoder scratch"};
  size_t total = 0;
#pragma omp parallel num_threads(threads)
  {
    const size_t team = size_t(omp_get_num_threads()), c = size_t(omp_get_thread_num());
    const size_t lo = chunk_begin(nb, team, c), hi = chunk_begin(nb, team, c + 1);
    sizes[c] = encode_range(x, n, lo, hi, headers, bodies + lo * max_body, encode_block);
#pragma omp barrier
#pragma omp single
    {
      // In order: a chunk's destination may overlap the areas of the chunks before it, whose
      // bytes have moved by then, never that of a later one.
      size_t acc = sizes[0];
      for (size_t i = 1; i < team; ++i) {
        std::memmove(bodies + acc, bodies + chunk_begin(nb, team, i) * max_body, sizes[i]);
        acc += sizes[i];
      }
      total = acc;
    }
  }
  return nb + total;
}

// Encoders repeat the last value's integer into the padding lanes of a partial last block, so
// their residuals are 0. The header holds the count, not the payload: this repetition is the
// payload's one witness of it, and a count lowered inside the last block breaks it unless the
// last two values were equal. (A count raised inside the block reads a repetition as a
// value: no payload can tell.) A raw block's size already depends on the count.
template <class T, class DecodeBlock>
Status check_padding_lanes(uint8_t header, const std::byte* bodies_end, size_t valid,
                           const std::array<uint16_t, 256>& body_sizes,
                           const DecodeBlock& decode_block) {
  if (valid == kBlockValues || header == kRawHeader) return {};
  T lanes[kBlockValues];
  decode_block(header, bodies_end - body_sizes[header], kBlockValues, lanes);
  for (size_t i = valid; i < kBlockValues; ++i)
    if (std::memcmp(&lanes[i], &lanes[valid - 1], sizeof(T)) != 0)
      return {ErrorCode::corrupt_frame,
              "szp's last block does not repeat value " + std::to_string(valid - 1) +
                  " into its padding: the payload was written for another element count"};
  return {};
}

using BodySizes = std::array<uint16_t, 256>;

// Body bytes of blocks [lo, hi) by the table; an invalid header sets kInvalidEntry in seen.
inline uint64_t body_bytes(const uint8_t* headers, size_t lo, size_t hi, const BodySizes& table,
                           uint32_t& seen) {
  uint64_t sum = 0;
  for (size_t b = lo; b < hi; ++b) {
    const uint16_t s = table[headers[b]];
    sum += s;
    seen |= s;
  }
  return sum;
}

// The error for the first invalid header at or after block `from` (there is one).
inline Status invalid_header(const uint8_t* headers, size_t from, const BodySizes& table) {
  size_t b = from;
  while (table[headers[b]] != kInvalidEntry) ++b;
  return {ErrorCode::corrupt_frame, "szp block " + std::to_string(b) +
                                        " has invalid header byte " + std::to_string(headers[b])};
}

inline Status bodies_mismatch(uint64_t need, size_t held) {
  return {ErrorCode::corrupt_frame, "szp block bodies need " + std::to_string(need) +
                                        " bytes but the payload holds " + std::to_string(held)};
}

// Decodes blocks [lo, hi) of a payload of n values, whose bodies start `pos` bytes into
// view.bodies, into out (block lo's first value), with up to `threads` threads, each a
// contiguous share found by a prefix sum over its header bytes. Every header is checked and
// the bodies' end found before anything is decoded: it must be the payload's end when
// `whole`, inside it otherwise. Returns that end. decode_block(uint8_t header, const
// std::byte* body, size_t valid, T* out) is called only for valid headers whose body lies
// inside the payload.
template <class T, class DecodeBlock>
Result<uint64_t> decode_blocks(const PayloadView& view, size_t n, Mode mode, uint64_t pos,
                               size_t lo, size_t hi, bool whole, int threads, T* out,
                               Workspace& ws, const DecodeBlock& decode_block) {
  const uint8_t* headers = view.headers.data();
  const std::byte* bodies = view.bodies.data();
  const size_t nb = view.headers.size();
  const BodySizes& table = kBodySizeTable<T>[int(mode)];
  const size_t last_valid = valid_in_block(n, nb - 1);
  // The table holds full-block sizes; a partial raw last block is shorter.
  const size_t last_raw_short = hi == nb && headers[nb - 1] == kRawHeader
                                    ? (kBlockValues - last_valid) * sizeof(T)
                                    : 0;
  uint64_t* starts = workspace_array<uint64_t>(ws, 1, size_t(threads) + 1);
  if (!starts) return Status{ErrorCode::capacity, "out of memory for szp decoder scratch"};
  Status status;
  uint64_t end = 0;
#pragma omp parallel num_threads(threads)
  {
    const size_t team = size_t(omp_get_num_threads()), c = size_t(omp_get_thread_num());
    const size_t first = lo + chunk_begin(hi - lo, team, c);
    const size_t last = lo + chunk_begin(hi - lo, team, c + 1);
    uint32_t seen = 0;
    const uint64_t sum = body_bytes(headers, first, last, table, seen);
    // Invalid headers are flagged in the top bit of the sum's chunk entry.
    starts[c] = (seen & kInvalidEntry) ? UINT64_MAX : sum;
#pragma omp barrier
#pragma omp single
    {
      uint64_t acc = pos;
      for (size_t i = 0; i < team && status.ok(); ++i) {
        if (starts[i] == UINT64_MAX)
          status = invalid_header(headers, lo + chunk_begin(hi - lo, team, i), table);
        const uint64_t s = starts[i];
        starts[i] = acc;
        acc += s;
      }
      end = acc - last_raw_short;
      if (status.ok() && (whole ? end != view.bodies.size() : end > view.bodies.size()))
        status = bodies_mismatch(end, view.bodies.size());
    }
    if (status.ok()) {
      uint64_t at = starts[c];
      for (size_t b = first; b < last; ++b) {
        const uint8_t h = headers[b];
        decode_block(h, bodies + at, b + 1 == nb ? last_valid : kBlockValues,
                     out + (b - lo) * kBlockValues);
        at += table[h];
      }
    }
  }
  if (!status.ok()) return status;
  return end;
}

// The payload's header bytes and bodies; an empty array's payload must be empty.
inline Result<PayloadView> open_payload(std::span<const std::byte> payload, size_t n) {
  auto view = split_payload(payload, n);
  if (view.ok() && view->headers.empty() && !view->bodies.empty())
    return Status{ErrorCode::corrupt_frame, "szp payload of an empty array must be empty"};
  return view;
}

// decode_block as for decode_blocks; out holds n values.
template <class T, class DecodeBlock>
Status decode_payload(std::span<const std::byte> payload, size_t n, Mode mode, T* out,
                      Workspace& ws, const DecodeBlock& decode_block) {
  auto view = open_payload(payload, n);
  if (!view.ok()) return view.status();
  const size_t nb = view->headers.size();
  if (nb == 0) return {};
  auto end = decode_blocks<T>(*view, n, mode, 0, 0, nb, true, pick_threads(nb), out, ws,
                             decode_block);
  if (!end.ok()) return end.status();
  return check_padding_lanes<T>(view->headers[nb - 1], view->bodies.data() + view->bodies.size(),
                                valid_in_block(n, nb - 1), kBodySizeTable<T>[int(mode)],
                                decode_block);
}

// decode_payload through `buffer`, its halves in turn: consecutive blocks are decoded (with
// OpenMP's threads, as decode_payload) into one half and handed to sink, in order, the last
// piece holding only the n values' tail; a piece's bytes stay as they are until sink
// returns from the next piece (so a sink may write one piece while the next decodes). The
// whole payload is checked before the first piece; a sink error ends the decode and is
// returned as it is.
template <class T, class DecodeBlock>
Status decode_payload_pieces(std::span<const std::byte> payload, size_t n, Mode mode,
                             std::span<T> buffer, const PieceSink& sink, Workspace& ws,
                             const DecodeBlock& decode_block) {
  auto view = open_payload(payload, n);
  if (!view.ok()) return view.status();
  const size_t nb = view->headers.size();
  if (nb == 0) return {};
  const size_t piece_blocks = buffer.size() / 2 / kBlockValues;
  if (piece_blocks == 0)
    return {ErrorCode::invalid_argument, "a piece buffer must hold two szp blocks of " +
                                             std::to_string(kBlockValues) + " values"};
  const BodySizes& table = kBodySizeTable<T>[int(mode)];
  const uint8_t* headers = view->headers.data();
  uint32_t seen = 0;
  uint64_t total = body_bytes(headers, 0, nb, table, seen);
  if (seen & kInvalidEntry) return invalid_header(headers, 0, table);
  const size_t last_valid = valid_in_block(n, nb - 1);
  if (headers[nb - 1] == kRawHeader) total -= (kBlockValues - last_valid) * sizeof(T);
  if (total != view->bodies.size()) return bodies_mismatch(total, view->bodies.size());
  COMMPRESS_RETURN_IF_ERROR(check_padding_lanes<T>(
      headers[nb - 1], view->bodies.data() + view->bodies.size(), last_valid, table, decode_block));
  uint64_t pos = 0;
  for (size_t lo = 0, k = 0; lo < nb; lo += piece_blocks, ++k) {
    const size_t hi = std::min(nb, lo + piece_blocks);
    const std::span<T> piece = buffer.subspan((k % 2) * piece_blocks * kBlockValues,
                                              piece_blocks * kBlockValues);
    auto end = decode_blocks<T>(*view, n, mode, pos, lo, hi, false, pick_threads(hi - lo),
                                piece.data(), ws, decode_block);
    if (!end.ok()) return end.status();
    pos = *end;
    const size_t values = std::min(n, hi * kBlockValues) - lo * kBlockValues;
    COMMPRESS_RETURN_IF_ERROR(sink(std::as_bytes(piece.first(values))));
  }
  return {};
}

}  // namespace commpress::codec::szp
