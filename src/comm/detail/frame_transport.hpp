// Moves typed arrays between ranks as codec frames, or as plain bytes when nothing is
// compressed, so each algorithm is written once for both modes. An array of n elements
// travels as ceil(n / chunk_elems) chunk frames; a "block" is those frames back to back.
// Frames are self-describing, so a receiver that knows only n (and the Wire) can split any
// concatenation of blocks again, checking every declared length against what arrived.
//
// Failure discipline: a local failure (a chunk that will not encode, a frame that will not
// decode) never changes the message pattern: an empty message stands in for a frame that
// could not be produced, every expected message is still received, and the first error is
// returned at the end. Callers fold it into agree_outcome so all ranks fail together. Only
// MPI errors return at once (the pattern cannot be kept then).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

inline constexpr size_t kDefaultChunkBytes = size_t{1} << 20;

// Bytes this rank put on the wire and the uncompressed bytes they stand for (Report fields).
struct Traffic {
  uint64_t raw_bytes = 0;
  uint64_t bytes_sent = 0;

  void add(uint64_t raw, uint64_t sent) {
    raw_bytes += raw;
    bytes_sent += sent;
  }
  void add_to(Report& r) const {
    r.raw_bytes += raw_bytes;
    r.bytes_sent += bytes_sent;
  }
};

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
  Wire with_abs_bound(double abs) const;
  size_t chunk_elems() const { return chunk_elems_; }
  Wire with_chunk_elems(size_t elems) const;  // the sender's layout, learned from a header

  size_t num_chunks(size_t n) const { return (n + chunk_elems_ - 1) / chunk_elems_; }
  size_t chunk_size(size_t n, size_t k) const;      // elements in chunk k of an n-array
  size_t frame_capacity(size_t elems) const;        // largest frame for elems elements
  size_t block_capacity(size_t n) const;            // largest block (all chunks) for n
  uint64_t raw_bytes(size_t elems) const { return uint64_t(elems) * elem_size_; }

  // (a) One frame for elems elements at data, written to buf[0, returned size). buf only
  // grows (to frame_capacity), so reusing it across calls allocates nothing.
  Result<size_t> encode(const void* data, size_t elems, std::vector<std::byte>& buf) const;
  // Exactly elems elements out of one frame (raw: the byte count must match exactly).
  Status decode(std::span<const std::byte> frame, void* out, size_t elems) const;

  // All chunk frames of an n-array, back to back (out resized to the block). On a chunk
  // failure the block is left empty and the error returned.
  Status encode_block(const void* data, size_t n, std::vector<std::byte>& out) const;
  // Bytes the block of an n-array occupies at the start of bytes (frame lengths checked
  // against what is there and against each chunk's capacity).
  Result<size_t> block_extent(std::span<const std::byte> bytes, size_t n) const;
  // Splits `blocks` consecutive blocks of n elements each: offsets[i]..offsets[i+1].
  Result<std::vector<size_t>> split_blocks(std::span<const std::byte> bytes, size_t n,
                                           size_t blocks) const;
  // Decodes a whole block (must be consumed exactly) into n elements.
  Status decode_block(std::span<const std::byte> block, void* out, size_t n) const;

 private:
  const codec::Codec* codec_ = nullptr;
  Dtype dtype_ = Dtype::u8;
  size_t elem_size_ = 1;
  double abs_bound_ = 0;
  bool needs_range_ = false;
  size_t chunk_elems_ = 1;
  codec::ErrorBound frame_bound() const;
};

// Collective: the absolute bound for a REL request, from the global range of the finite
// values every rank contributes (data may be empty on ranks that contribute nothing), with
// one small MPI_Allreduce. Same result on every rank; wire unchanged unless needs_range().
Result<Wire> agree_abs_bound(const Wire& wire, const void* data, size_t n, MPI_Comm comm);
// Local: the absolute bound for a REL request from this rank's data alone (point-to-point).
Result<Wire> local_abs_bound(const Wire& wire, const void* data, size_t n);

// (b) Pipelined send of an n-array to every rank in dests (the same frames to each): chunk
// k+1 is encoded while chunk k is in flight (double-buffered MPI_Isend, MPI_Test between
// chunks). One message per chunk, all with tag on comm.
Status send_stream(const Wire& wire, const void* data, size_t n, std::span<const int> dests,
                   int tag, MPI_Comm comm, Traffic& traffic);

// (c) Receives such a stream from src with preposted MPI_Irecv (capacity frame_capacity of
// the chunk), forwards each frame unchanged to every rank in forward as soon as it arrives
// (no recompression), and decodes chunk k while chunk k+1 arrives. out may be null only when
// decoding is not wanted (pure relay).
Status recv_stream(const Wire& wire, void* out, size_t n, int src, std::span<const int> forward,
                   int tag, MPI_Comm comm, Traffic& traffic);

// (d) Sends `out` (standing for raw_out uncompressed bytes) to dest and receives one message
// of at most capacity bytes from src into `in`, resized to what arrived. Either peer may be
// MPI_PROC_NULL (then `in` is left empty).
Status exchange(std::span<const std::byte> out, uint64_t raw_out, int dest,
                std::vector<std::byte>& in, size_t capacity, int src, int tag, MPI_Comm comm,
                Traffic& traffic);

// Blocking send / receive of one message of unknown size (at most capacity bytes).
Status send_bytes(std::span<const std::byte> out, uint64_t raw_out, int dest, int tag,
                  MPI_Comm comm, Traffic& traffic);
Status recv_bytes(std::vector<std::byte>& in, size_t capacity, int src, int tag, MPI_Comm comm);

// Testing only: the next non-empty message this rank sends through the functions above
// arrives with one byte flipped in its middle (a damaged link; the sender's data is intact).
void corrupt_next_send_for_testing();

}  // namespace commpress::comm::detail
