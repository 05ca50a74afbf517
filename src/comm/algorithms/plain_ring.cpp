#include "comm/algorithms/plain_ring.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "core/assert.hpp"

namespace commpress::comm::detail {

namespace {

constexpr int kTag = 0x480;

}  // namespace

Status plain_ring_reduce_scatter(const ReduceContext& ctx, const std::byte* input, size_t m,
                                 std::byte* out) {
  const int p = ctx.size, r = ctx.rank;
  COMMPRESS_ASSERT(p >= 2 && !ctx.wire.codec());
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  const size_t es = ctx.wire.elem_size(), block = m * es;
  const size_t piece = std::clamp<size_t>(ctx.wire.chunk_elems(), 1, INT_MAX);
  const MPI_Datatype type = mpi_datatype(ctx.wire.dtype());
  // The partial lives in out: each piece of it leaves while the next step's piece arrives in
  // a piece-sized buffer, and their sum replaces it. Block-sized partial buffers, fresh on
  // every call, cost their first-touch page faults every time (docs/measured-choices.md);
  // this one is kept for the next call.
  thread_local std::vector<std::byte> arriving;
  const size_t piece_bytes = std::min(piece, std::max<size_t>(m, 1)) * es;
  if (arriving.size() < piece_bytes) arriving.resize(piece_bytes);
  for (int s = 0; s <= p - 2; ++s) {
    const std::byte* send = s == 0 ? input + size_t((r + p - 1) % p) * block : out;
    const std::byte* own = input + size_t((r - s - 2 + 2 * p) % p) * block;
    for (size_t at = 0; at < m; at += piece) {
      const size_t n = std::min(piece, m - at);
      COMMPRESS_MPI(MPI_Sendrecv(send + at * es, int(n), type, right, kTag, arriving.data(), int(n),
                                 type, left, kTag, ctx.comm, MPI_STATUS_IGNORE));
      apply_op_into(ctx.op, ctx.wire.dtype(), out + at * es, arriving.data(), own + at * es, n);
    }
    ctx.traffic.add(block, block);
  }
  return {};
}

const Runner plain_ring{
    nullptr,
    // Nothing quantizes (no quantizations): MPI's rounding only.
    [](ReduceSession& s, const std::byte* in, std::byte* out, size_t m) -> Status {
      return plain_ring_reduce_scatter(s.context(), in, m, out);
    }};

}  // namespace commpress::comm::detail
