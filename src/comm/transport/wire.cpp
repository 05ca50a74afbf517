#include "comm/transport/wire.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "comm/session/private_comm.hpp"
#include "comm/session/value_range.hpp"
#include "comm/session/yielding_wait.hpp"
#include "comm/transport/smpi_work_reuse.hpp"

namespace commpress::comm::detail {

namespace {

codec::Workspace& workspace() {
  thread_local codec::Workspace ws;
  return ws;
}

std::string num(uint64_t v) { return std::to_string(v); }

size_t chunk_elems_for(size_t chunk_bytes, size_t elem_size) {
  size_t bytes = chunk_bytes ? chunk_bytes : kDefaultChunkBytes;
  return std::max<size_t>(1, bytes / elem_size);
}

// The codec's own rule on the range of all the data: a bound of 0 (constant data, or one too
// small for the dtype) makes every frame exact.
Result<Wire> resolve_range(const Wire& wire, double lo, double hi) {
  return wire.with_abs_bound(codec::rel_to_abs(wire.rel_value(), {lo, hi, lo <= hi}, wire.dtype()));
}

}  // namespace

std::string codec_choice(const Options& opts, Dtype dtype) {
  if (opts.codec != "auto") return opts.codec.empty() ? "none" : opts.codec;
  return opts.bound.mode != codec::BoundMode::lossless && codec::is_float(dtype) ? "szp" : "none";
}

Result<Wire> Wire::make(const Options& opts, Dtype dtype) {
  Wire w;
  w.dtype_ = dtype;
  w.elem_size_ = codec::dtype_size(dtype);
  if (w.elem_size_ == 0)
    return Status{ErrorCode::invalid_argument, "unknown dtype " + num(uint64_t(dtype))};
  w.chunk_elems_ = chunk_elems_for(opts.chunk_bytes, w.elem_size_);
  std::string name = codec_choice(opts, dtype);
  if (!name.empty() && name != "none") {
    auto c = codec::get_codec(name);
    if (!c.ok()) return c.status();
    w.codec_ = *c;
    if (!w.codec_->supports(dtype))
      return Status{ErrorCode::unsupported, "codec " + name + " does not support dtype " +
                                                codec::dtype_name(dtype)};
    if (w.codec_->lossy()) {
      const codec::ErrorBound& b = opts.bound;
      if (b.mode == codec::BoundMode::lossless)
        return Status{ErrorCode::invalid_argument,
                      "codec " + name +
                          " is lossy: give Options::bound an absolute or relative bound, or "
                          "choose a lossless codec"};
      if (!std::isfinite(b.value) || b.value <= 0)
        return Status{ErrorCode::invalid_argument,
                      "error bound must be a positive finite number, got " +
                          std::to_string(b.value)};
      if (b.mode == codec::BoundMode::abs) w.abs_bound_ = b.value;
      w.needs_range_ = b.mode == codec::BoundMode::rel;
      w.rel_value_ = w.needs_range_ ? b.value : 0.0;
    }
  }
  if (w.frame_capacity(w.chunk_elems_) > size_t(INT_MAX))
    return Status{ErrorCode::invalid_argument,
                  "chunk_bytes " + num(opts.chunk_bytes) +
                      " gives chunk frames beyond the 2 GiB an MPI message can carry"};
  return w;
}

Wire Wire::uncompressed(Dtype dtype, size_t chunk_bytes) {
  Wire w;
  w.dtype_ = dtype;
  w.elem_size_ = std::max<size_t>(1, codec::dtype_size(dtype));
  w.chunk_elems_ = chunk_elems_for(chunk_bytes, w.elem_size_);
  return w;
}

Result<Wire> Wire::resolved(const std::string& codec, Dtype dtype, double abs_bound) {
  if (!std::isfinite(abs_bound) || abs_bound < 0)
    return Status{
        ErrorCode::invalid_argument,
        "absolute bound must be finite and non-negative, got " + std::to_string(abs_bound)};
  Options opts;
  opts.codec = codec.empty() ? "none" : codec;
  // make checks the codec against the dtype and, for a lossy one, the bound's form; any
  // positive bound passes that check, and the resolved one replaces it.
  opts.bound = codec::ErrorBound::absolute(abs_bound > 0 ? abs_bound : 1.0);
  auto w = make(opts, dtype);
  if (!w.ok()) return w.status();
  return w->with_abs_bound(abs_bound);
}

std::string Wire::codec_name() const { return codec_ ? std::string(codec_->name()) : "none"; }

Wire Wire::with_abs_bound(double abs) const {
  Wire w = *this;
  w.abs_bound_ = lossy() ? abs : 0.0;
  w.needs_range_ = false;
  return w;
}

Wire Wire::with_chunk_elems(size_t elems) const {
  Wire w = *this;
  w.chunk_elems_ = std::max<size_t>(1, elems);
  return w;
}

size_t Wire::chunk_size(size_t n, size_t k) const {
  size_t start = k * chunk_elems_;
  return start >= n ? 0 : std::min(chunk_elems_, n - start);
}

size_t Wire::frame_capacity(size_t elems) const {
  return codec_ ? codec_->compress_bound(elems, dtype_) : elems * elem_size_;
}

size_t Wire::block_capacity(size_t n) const {
  size_t full = n / chunk_elems_, rest = n % chunk_elems_;
  return full * frame_capacity(chunk_elems_) + (rest ? frame_capacity(rest) : 0);
}

codec::ErrorBound Wire::frame_bound() const {
  // A lossy codec asked for no loss writes exact frames of its own format.
  return lossy() && abs_bound_ > 0 ? codec::ErrorBound::absolute(abs_bound_)
                                   : codec::ErrorBound::lossless();
}

Result<size_t> Wire::encode_into(const void* data, size_t elems, std::span<std::byte> buf) const {
  if (needs_range_)
    return Status{ErrorCode::internal, "relative bound used before it was resolved"};
  const size_t cap = frame_capacity(elems);
  if (buf.size() < cap) return Status{ErrorCode::internal, "frame buffer below capacity"};
  if (!codec_) {
    if (cap) std::memcpy(buf.data(), data, cap);
    return cap;
  }
  return codec_->compress_into(data, elems, dtype_, frame_bound(), buf.first(cap), workspace());
}

Status Wire::encode_exact(const void* data, size_t elems, std::vector<std::byte>& out) const {
  auto run = [&]() -> Status {
    thread_local Buffer scratch;
    auto len = encode(data, elems, scratch);
    if (!len.ok()) {
      out.clear();
      return len.status();
    }
    out.assign(scratch.begin(), scratch.begin() + std::ptrdiff_t(*len));
    return {};
  };
  return codec_ ? reused_frame(*this, "encode", data, elems, {}, out, run) : run();
}

Status Wire::decode(std::span<const std::byte> frame, void* out, size_t elems) const {
  if (codec_)
    return reused_decode(*this, frame, out, elems, [&] {
      return codec_->decompress(frame, out, elems, dtype_, workspace());
    });
  if (frame.size() != elems * elem_size_)
    return {ErrorCode::truncated, "raw chunk of " + num(frame.size()) + " bytes, expected " +
                                      num(elems * elem_size_)};
  if (!frame.empty()) std::memcpy(out, frame.data(), frame.size());
  return {};
}

Status Wire::encode_block(const void* data, size_t n, Buffer& out) const {
  out.resize(block_capacity(n));  // uninitialised: only the frames written are ever read
  size_t pos = 0;
  const auto* src = static_cast<const std::byte*>(data);
  for (size_t k = 0; k < num_chunks(n); ++k) {
    size_t m = chunk_size(n, k);
    auto len = encode_into(src + k * chunk_elems_ * elem_size_, m,
                           std::span<std::byte>(out).subspan(pos, frame_capacity(m)));
    if (!len.ok()) {
      out.clear();
      return {len.status().code(), "chunk " + num(k) + ": " + len.status().message()};
    }
    pos += *len;
  }
  out.resize(pos);
  return {};
}

Result<size_t> Wire::block_extent(std::span<const std::byte> bytes, size_t n) const {
  size_t pos = 0;
  for (size_t k = 0; k < num_chunks(n); ++k) {
    size_t m = chunk_size(n, k), len = m * elem_size_;
    auto rest = bytes.subspan(pos);
    if (codec_) {
      auto size = codec::peek_frame_size(rest);
      if (!size.ok())
        return Status{size.status().code(), "chunk " + num(k) + ": " + size.status().message()};
      len = *size;
      if (len > frame_capacity(m))
        return Status{ErrorCode::corrupt_frame,
                      "chunk " + num(k) + " declares " + num(len) + " bytes; at most " +
                          num(frame_capacity(m)) + " are possible for " + num(m) + " elements"};
    }
    if (len > rest.size())
      return Status{ErrorCode::truncated, "chunk " + num(k) + " needs " + num(len) +
                                              " bytes, only " + num(rest.size()) + " arrived"};
    pos += len;
  }
  return pos;
}

Result<std::vector<size_t>> Wire::split_blocks(std::span<const std::byte> bytes, size_t n,
                                               size_t blocks) const {
  std::vector<size_t> offsets{0};
  for (size_t b = 0; b < blocks; ++b) {
    auto len = block_extent(bytes.subspan(offsets.back()), n);
    if (!len.ok())
      return Status{len.status().code(), "block " + num(b) + ": " + len.status().message()};
    offsets.push_back(offsets.back() + *len);
  }
  if (offsets.back() != bytes.size())
    return Status{ErrorCode::corrupt_frame, num(bytes.size() - offsets.back()) +
                                                " bytes trail the " + num(blocks) + " blocks"};
  return offsets;
}

Status Wire::decode_block(std::span<const std::byte> block, void* out, size_t n,
                          const std::function<void()>& between_chunks) const {
  auto* dst = static_cast<std::byte*>(out);
  size_t pos = 0;
  for (size_t k = 0; k < num_chunks(n); ++k) {
    size_t m = chunk_size(n, k);
    auto len = block_extent(block.subspan(pos), m);  // one chunk of m elements
    if (!len.ok())
      return {len.status().code(), "chunk " + num(k) + ": " + len.status().message()};
    Status st = decode(block.subspan(pos, *len), dst + k * chunk_elems_ * elem_size_, m);
    if (!st.ok()) return {st.code(), "chunk " + num(k) + ": " + st.message()};
    pos += *len;
    if (between_chunks) between_chunks();
  }
  if (pos != block.size())
    return {ErrorCode::corrupt_frame,
            num(block.size() - pos) + " bytes trail the block's " + num(num_chunks(n)) + " frames"};
  return {};
}

Result<Wire> agree_abs_bound(const Wire& wire, const void* data, size_t n, MPI_Comm comm) {
  if (!wire.needs_range()) return wire;
  const ValueRange r = local_range(wire.dtype(), data, n);
  double ends[2] = {r.lo, -r.hi};
  COMMPRESS_MPI(allreduce_yielding(MPI_IN_PLACE, ends, 2, MPI_DOUBLE, MPI_MIN, comm));
  return resolve_range(wire, ends[0], -ends[1]);
}

Result<Wire> agreed_abs_bound(const Wire& wire, double lo, double hi) {
  if (!wire.needs_range()) return wire;
  return resolve_range(wire, lo, hi);
}

Result<Wire> local_abs_bound(const Wire& wire, const void* data, size_t n) {
  if (!wire.needs_range()) return wire;
  const ValueRange r = local_range(wire.dtype(), data, n);
  return resolve_range(wire, r.lo, r.hi);
}

}  // namespace commpress::comm::detail
