// How one operation encodes typed data for the wire: a codec's chunk frames, or plain
// bytes when nothing is compressed. An array of n elements travels as ceil(n / chunk_elems)
// chunk frames; a "block" is those frames back to back. Frames are self-describing, so a
// receiver that knows only n can split a concatenation of blocks again, checking every
// declared length against what arrived and against the chunk's worst case.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "comm/transport/buffer.hpp"
#include "commpress/codec.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

inline constexpr size_t kDefaultChunkBytes = size_t{1} << 20;

// The codec Options ask for: "none" for uncompressed, Options::codec "auto" resolved.
std::string codec_choice(const Options& opts, Dtype dtype);

// How one operation encodes data: codec (none = raw bytes), dtype, the absolute bound every
// frame honours, and the chunk size. Identical on all ranks once the arguments agree.
class Wire {
 public:
  // Local checks of the caller's choice: "" or "none" sends raw bytes; a lossless codec
  // ignores the bound; a lossy codec needs f32/f64 and an ABS or REL bound. An ABS bound is
  // used as is; a REL bound must be resolved with with_abs_bound (see agree_abs_bound).
  static Result<Wire> make(const Options& opts, Dtype dtype);
  // Raw bytes, no codec (Algorithm::Mpi bookkeeping, placeholder paths).
  static Wire uncompressed(Dtype dtype, size_t chunk_bytes = 0);
  // A codec ("" or "none": raw bytes) with a bound already absolute (0: exact frames), as the
  // distributed multiply's operands and the triangular panels carry once their REL bound is
  // resolved against the data's range: the codec checks of make, without its bound's.
  static Result<Wire> resolved(const std::string& codec, Dtype dtype, double abs_bound);

  bool compressed() const { return codec_ != nullptr; }
  bool lossy() const { return codec_ != nullptr && codec_->lossy(); }
  const codec::Codec* codec() const { return codec_; }
  std::string codec_name() const;  // "none" when uncompressed
  Dtype dtype() const { return dtype_; }
  size_t elem_size() const { return elem_size_; }
  // The bound every decoded element obeys (0 = exact). For a REL request before
  // with_abs_bound this is 0 and needs_range() is true.
  double abs_bound() const { return abs_bound_; }
  bool needs_range() const { return needs_range_; }
  double rel_value() const { return rel_value_; }  // the REL fraction asked for
  Wire with_abs_bound(double abs) const;
  size_t chunk_elems() const { return chunk_elems_; }
  size_t chunk_bytes() const { return chunk_elems_ * elem_size_; }
  Wire with_chunk_elems(size_t elems) const;  // the sender's layout, learned from a header

  size_t num_chunks(size_t n) const { return (n + chunk_elems_ - 1) / chunk_elems_; }
  size_t chunk_size(size_t n, size_t k) const;      // elements in chunk k of an n-array
  size_t frame_capacity(size_t elems) const;        // largest frame for elems elements
  size_t block_capacity(size_t n) const;            // largest block (all chunks) for n
  uint64_t raw_bytes(size_t elems) const { return uint64_t(elems) * elem_size_; }

  // (a) One frame for elems elements at data, written to buf[0, returned size). buf only
  // grows (to frame_capacity), so reusing it across calls allocates nothing.
  template <class ByteVector>
  Result<size_t> encode(const void* data, size_t elems, ByteVector& buf) const {
    size_t cap = frame_capacity(elems);
    if (buf.size() < cap) buf.resize(cap);
    return encode_into(data, elems, std::span<std::byte>(buf.data(), cap));
  }
  // The same into buf of at least frame_capacity(elems) bytes.
  Result<size_t> encode_into(const void* data, size_t elems, std::span<std::byte> buf) const;
  // The frame into out, sized to it (left empty on failure). Through a scratch buffer of
  // this thread's: growing a std::vector to the frame capacity zeroes it, a megabyte per
  // chunk for frames a few times smaller.
  Status encode_exact(const void* data, size_t elems, std::vector<std::byte>& out) const;
  // Exactly elems elements out of one frame (raw: the byte count must match exactly).
  Status decode(std::span<const std::byte> frame, void* out, size_t elems) const;

  // All chunk frames of an n-array, back to back (out resized to the block). On a chunk
  // failure the block is left empty and the error returned.
  Status encode_block(const void* data, size_t n, Buffer& out) const;
  // Bytes the block of an n-array occupies at the start of bytes (frame lengths checked
  // against what is there and against each chunk's capacity).
  Result<size_t> block_extent(std::span<const std::byte> bytes, size_t n) const;
  // Splits `blocks` consecutive blocks of n elements each: offsets[i]..offsets[i+1].
  Result<std::vector<size_t>> split_blocks(std::span<const std::byte> bytes, size_t n,
                                           size_t blocks) const;
  // Decodes a whole block (must be consumed exactly) into n elements.
  // between_chunks (if given) runs after every chunk decoded: the allgathers drive the
  // exchange in flight from there.
  Status decode_block(std::span<const std::byte> block, void* out, size_t n,
                      const std::function<void()>& between_chunks = {}) const;

 private:
  const codec::Codec* codec_ = nullptr;
  Dtype dtype_ = Dtype::u8;
  size_t elem_size_ = 1;
  double abs_bound_ = 0;
  bool needs_range_ = false;
  size_t chunk_elems_ = 1;
  double rel_value_ = 0;  // the REL fraction while needs_range_
  codec::ErrorBound frame_bound() const;
};

// Collective: the absolute bound for a REL request, from the global range of the finite
// values every rank contributes (data may be empty on ranks that contribute nothing), with
// one small MPI_Allreduce. Same result on every rank; wire unchanged unless needs_range().
Result<Wire> agree_abs_bound(const Wire& wire, const void* data, size_t n, MPI_Comm comm);
// The same from a global range the ranks already agree on (lo > hi: no finite value).
Result<Wire> agreed_abs_bound(const Wire& wire, double lo, double hi);
// Local: the absolute bound for a REL request from this rank's data alone (point-to-point).
Result<Wire> local_abs_bound(const Wire& wire, const void* data, size_t n);

}  // namespace commpress::comm::detail
