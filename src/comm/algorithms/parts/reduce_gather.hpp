// The last phase of a reduce: the finished blocks, each owned by one rank in the encoding it
// was produced in, go to the root chunk by chunk, and the root decodes each chunk as it
// arrives while the others are still in flight.
#pragma once

#include <span>

#include "comm/algorithms/parts/reduce_context.hpp"

namespace commpress::comm::detail {

struct BlockSource {
  int owner;      // rank holding the block
  size_t begin;   // first element in the root's output
  size_t n;
  Wire wire;      // how its chunks are encoded
};

// Every rank passes the same list. An owner other than root sends own->chunks (own must
// describe its block); root posts all receives, decodes into out, and decodes its own block
// from own when it owns one and own is non-null (otherwise the caller fills that part).
Status gather_to_root(const ReduceContext& ctx, std::span<const BlockSource> blocks,
                      const OwnedBlock* own, int root, std::byte* out);

}  // namespace commpress::comm::detail
