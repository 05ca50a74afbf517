// One chunked transfer step of the decompress-operate algorithms: send a range of values to
// one rank while receiving a range from another, each direction with its own encoding (raw
// below the break-even size). Every chunk is its own message; chunk j + 1 is encoded while
// chunk j leaves, and each arriving chunk is decoded (and reduced) while the next arrives.
#pragma once

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

enum class Arrival { assign, reduce };  // in = decoded, or in = base op decoded

struct Outgoing {
  const Wire* wire;
  const std::byte* data;
  size_t n;
  int dest;  // MPI_PROC_NULL: nothing to send
};
struct Incoming {
  const Wire* wire;
  std::byte* data;
  size_t n;
  int src;  // MPI_PROC_NULL: nothing to receive
  Arrival arrival;
  // Where Arrival::reduce reads the values it combines with the decoded ones (n elements);
  // null: data itself. Lets a reduction's first step read the caller's input instead of a
  // copy of it.
  const std::byte* base = nullptr;
};

Status exchange_values(const ReduceContext& ctx, const Outgoing& out, const Incoming& in,
                       int tag);

// The wire for a transfer of n elements: ctx.wire when it compresses and the transfer is at
// least ctx.break_even bytes, else raw bytes.
Wire wire_for(const ReduceContext& ctx, size_t n);
bool compresses(const Wire& wire, size_t break_even, size_t n);

}  // namespace commpress::comm::detail

namespace commpress::comm::detail {

// data[0, n) encoded chunk by chunk with wire, as the block [begin, begin + n) of a vector.
// A chunk that fails to encode is left empty (and the failure recorded).
OwnedBlock encode_owned(const ReduceContext& ctx, const Wire& wire, const std::byte* data,
                        size_t begin, size_t n);

}  // namespace commpress::comm::detail
