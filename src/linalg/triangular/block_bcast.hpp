// A nonblocking broadcast of one contiguous block, raw or as one frame of the call's Wire
// (comm/transport/wire.hpp: the codec and bound every frame of the call honours). Compressed,
// it is two broadcasts on the communicator, a header (frame size, and a status value that
// must not go through a lossy codec) then the frame; a receiver posts the second once the
// first has arrived, from test() or wait(), before the caller's next collective on the same
// communicator (every caller waits before its next one). The root keeps its own exact values.
// Given the sizes of consecutive blocks of the data, each block is its own frames
// (block_frames.hpp), which block_frames() then hands on unchanged.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commpress/status.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/transport/wire.hpp"

namespace commpress::linalg::detail {

using comm::detail::Wire;

template <class T>
class BlockBcast {
 public:
  BlockBcast() = default;
  BlockBcast(const BlockBcast&) = delete;
  BlockBcast& operator=(const BlockBcast&) = delete;

  // data: count elements (the root's input, everyone's output, alive until wait()); frames
  // null or uncompressed: raw. status: the root's value, everyone's after wait(). blocks: the
  // element counts of consecutive blocks summing to count (every rank passes the same), each
  // then encoded apart; empty: one frame for the whole.
  void start(T* data, int64_t count, int64_t status, int root, MPI_Comm comm, const Wire* frames,
             std::vector<int64_t> blocks = {});
  // Lets MPI progress; true once the block has arrived (wait() then returns at once).
  bool test();
  // A frame that fails to decode is an error on that rank (only corruption can cause one: the
  // bytes are what the root's encode produced); the status arrives regardless.
  Status wait();
  int64_t status() const { return header_[1]; }
  // Bytes this rank received (the frame or the raw block; 0 on the root), for the report.
  int64_t bytes() const { return bytes_; }
  // Compressed with blocks: block b's frames as they travelled (on the root once started,
  // elsewhere after a wait() that succeeded; empty otherwise).
  std::span<const std::byte> block_frames(size_t b) const {
    if (b + 1 >= offsets_.size()) return {};
    return std::span<const std::byte>(frame_).subspan(offsets_[b], offsets_[b + 1] - offsets_[b]);
  }

 private:
  void post_payload();
  T* data_ = nullptr;
  int64_t count_ = 0;
  int root_ = 0, rank_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  const Wire* frames_ = nullptr;
  int64_t header_[2] = {0, 0};  // frame bytes, status
  comm::detail::Buffer frame_;
  std::vector<int64_t> blocks_;
  std::vector<size_t> offsets_;  // blocks_' frames in frame_
  MPI_Request header_request_ = MPI_REQUEST_NULL, payload_request_ = MPI_REQUEST_NULL;
  bool payload_posted_ = false;
  Status encode_status_;
  int64_t bytes_ = 0;
};

extern template class BlockBcast<float>;
extern template class BlockBcast<double>;

template <class T>
MPI_Datatype mpi_type_of();

}  // namespace commpress::linalg::detail
