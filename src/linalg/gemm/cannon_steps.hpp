// Cannon's multiply-and-shift loop on one q x q layer, shared by Cannon (one layer doing all q
// steps) and 2.5D Cannon (each layer a contiguous share of them). A and B are encoded ONCE
// (raw packed, or compressed with the call's codec and the input bounds), and those bytes are
// what the skew and every shift move: a block is decoded into a work block for its product and
// never recompressed, so a lossless codec gives exactly the uncompressed products.
//
// Failures after setup (a frame that does not decode, a transfer that reports an error) are
// kept, not returned at once: the rank keeps taking part in every transfer so no peer is left
// waiting, and run() and status() report them once the loop is done.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "comm/transport/buffer.hpp"
#include "comm/transport/frame_transport.hpp"
#include "linalg/gemm/block_frame.hpp"
#include "linalg/gemm/cannon_layout.hpp"
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

using comm::detail::Buffer;
using comm::detail::PendingExchange;
using comm::detail::Traffic;

template <class T>
class CannonSteps {
 public:
  // Same verdict on every rank (it depends only on agreed arguments).
  static Result<CannonSteps> create(const GemmCall<T>& call);

  // The encoded blocks this rank holds before the skew: its own stored blocks after
  // encode_local(), or a replica received into them (their capacity fits any block).
  Buffer& held_a() { return a_[0]; }
  Buffer& held_b() { return b_[0]; }
  size_t a_capacity() const { return a_cap_; }
  size_t b_capacity() const { return b_cap_; }
  BlockShape held_a_shape() const { return layout_.a_held_shape(pos_); }
  BlockShape held_b_shape() const { return layout_.b_held_shape(pos_); }
  void encode_local();

  // Skews the held blocks for step `first`, then runs steps [first, last): the rank's
  // (mi x nj) block c accumulates alpha * op(A)(i,kk) * op(B)(kk,j), the first product scaling
  // c by beta (beta == 0 overwrites, NaN included). Collective over the layer; an empty range
  // does nothing (c untouched).
  Status run(int first, int last, T beta, T* c, int64_t ldc);

  Status status() const { return failure_; }
  // What this rank sent; a caller adds the sends it makes on the held blocks' behalf (a
  // replica broadcast, say).
  Traffic& traffic() { return traffic_; }
  uint64_t memory_bytes() const;  // work blocks and encoded buffers

 private:
  CannonSteps(const GemmCall<T>& call, Wire a, Wire b);
  Status skew(int first);
  struct Neighbours {
    int left, right, up, down;  // in row_comm (columns) and col_comm (rows)
  };
  Neighbours neighbours() const;
  // Starts moving the blocks of `step` on (A left, B up), counting what this rank sends.
  Status post_shift(int step, PendingExchange& xa, PendingExchange& xb);
  // Completes a posted shift, or runs it blocking; then the received blocks are current.
  Status finish_shift(int step, bool posted, PendingExchange& xa, PendingExchange& xb);
  void multiply(int step, T beta, T* c, int64_t ldc, PendingExchange& xa, PendingExchange& xb);
  static uint64_t raw(BlockShape shape) { return uint64_t(shape.elements()) * sizeof(T); }
  void keep(const Status& st) {
    if (failure_.ok() && !st.ok()) failure_ = st;
  }

  const GemmCall<T>* call_;
  CannonLayout layout_;
  GridPos pos_;
  Wire a_wire_, b_wire_;
  size_t a_cap_ = 0, b_cap_ = 0;  // the largest frame of any A / B block
  // [0] holds the block in use, [1] receives the next one; swapped after every transfer.
  std::array<Buffer, 2> a_, b_;
  std::vector<T> work_a_, work_b_;
  Status failure_;
  Traffic traffic_;
};

}  // namespace commpress::linalg::detail
