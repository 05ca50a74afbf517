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

#include "linalg/gemm/block_codec.hpp"
#include "linalg/gemm/cannon_layout.hpp"
#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/shift_exchange.hpp"

namespace commpress::linalg::detail {

template <class T>
class CannonSteps {
 public:
  // Same verdict on every rank (it depends only on agreed arguments).
  static Result<CannonSteps> create(const GemmCall<T>& call);

  // The encoded blocks this rank holds before the skew: its own stored blocks after
  // encode_local(), or a replica received into them (their capacity fits any block).
  EncodedBlock& held_a() { return a_[0]; }
  EncodedBlock& held_b() { return b_[0]; }
  BlockShape held_a_shape() const { return layout_.a_held_shape(pos_); }
  BlockShape held_b_shape() const { return layout_.b_held_shape(pos_); }
  void encode_local();

  // Skews the held blocks for step `first`, then runs steps [first, last): the rank's
  // (mi x nj) block c accumulates alpha * op(A)(i,kk) * op(B)(kk,j), the first product scaling
  // c by beta (beta == 0 overwrites, NaN included). Collective over the layer; an empty range
  // does nothing (c untouched).
  Status run(int first, int last, T beta, T* c, int64_t ldc);

  Status status() const { return failure_; }
  uint64_t raw_bytes() const { return raw_bytes_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  // Counts a send made on the held blocks' behalf (a replica broadcast, say).
  void count_send(uint64_t raw, uint64_t sent) {
    raw_bytes_ += raw;
    bytes_sent_ += sent;
  }
  uint64_t memory_bytes() const;  // work blocks and encoded buffers

 private:
  CannonSteps(const GemmCall<T>& call, BlockCodec a, BlockCodec b);
  Status skew(int first);
  struct Neighbours {
    int left, right, up, down;  // in row_comm (columns) and col_comm (rows)
  };
  Neighbours neighbours() const;
  Status post_shift(BlockExchange& xa, BlockExchange& xb);
  // Completes a posted shift, or runs it blocking; then the received blocks are current.
  Status finish_shift(int step, BlockExchange& xa, BlockExchange& xb);
  void multiply(int step, T beta, T* c, int64_t ldc, BlockExchange& xa, BlockExchange& xb);
  void keep(const Status& st) {
    if (failure_.ok() && !st.ok()) failure_ = st;
  }
  void count(BlockShape shape, size_t encoded) {
    count_send(uint64_t(shape.elements()) * sizeof(T), encoded);
  }

  const GemmCall<T>* call_;
  CannonLayout layout_;
  GridPos pos_;
  BlockCodec a_codec_, b_codec_;
  // [0] holds the block in use, [1] receives the next one; swapped after every transfer.
  std::array<EncodedBlock, 2> a_, b_;
  std::vector<T> work_a_, work_b_;
  Status failure_;
  uint64_t raw_bytes_ = 0, bytes_sent_ = 0;
};

}  // namespace commpress::linalg::detail
