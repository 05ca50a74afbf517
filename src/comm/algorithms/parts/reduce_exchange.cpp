#include "comm/algorithms/parts/reduce_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "comm/algorithms/parts/reduce_ops.hpp"

namespace commpress::comm::detail {

bool compresses(const Wire& wire, size_t break_even, size_t n) {
  return wire.compressed() && wire.raw_bytes(n) >= break_even;
}

Wire wire_for(const ReduceContext& ctx, size_t n) {
  return compresses(ctx.wire, ctx.break_even, n) ? ctx.wire : ctx.raw_wire();
}

Status exchange_values(const ReduceContext& ctx, const Outgoing& out, const Incoming& in,
                       int tag) {
  const Wire& wo = *out.wire;
  const Wire& wi = *in.wire;
  const size_t jo = out.dest == MPI_PROC_NULL ? 0 : wo.num_chunks(out.n);
  const size_t ji = in.src == MPI_PROC_NULL ? 0 : wi.num_chunks(in.n);
  const size_t chunks = std::max(jo, ji);
  const size_t es = wi.elem_size();
  std::vector<Buffer> ob(chunks), ib(chunks);
  std::vector<PendingExchange> x(chunks);
  for (size_t j = 0; j < chunks; ++j) {
    std::span<const std::byte> msg;
    if (j < jo) {
      size_t m = wo.chunk_size(out.n, j);
      auto len = wo.encode(out.data + j * wo.chunk_elems() * es, m, ob[j]);
      ctx.fail(len.status(), "chunk " + std::to_string(j) + " for rank " +
                                 std::to_string(out.dest) + ": ");
      msg = std::span<const std::byte>(ob[j].data(), len.ok() ? *len : 0);
    }
    COMMPRESS_RETURN_IF_ERROR(
        x[j].start(msg, j < jo ? wo.raw_bytes(wo.chunk_size(out.n, j)) : 0,
                   j < jo ? out.dest : MPI_PROC_NULL, ib[j],
                   j < ji ? wi.frame_capacity(wi.chunk_size(in.n, j)) : 0,
                   j < ji ? in.src : MPI_PROC_NULL, tag, ctx.comm, ctx.traffic));
  }
  Buffer tmp(in.arrival == Arrival::reduce && ji ? wi.chunk_elems() * es : 0);
  for (size_t j = 0; j < chunks; ++j) {
    COMMPRESS_RETURN_IF_ERROR(x[j].finish());
    if (j >= ji) continue;
    const size_t m = wi.chunk_size(in.n, j);
    std::byte* dst = in.data + j * wi.chunk_elems() * es;
    const std::string where =
        "chunk " + std::to_string(j) + " from rank " + std::to_string(in.src) + ": ";
    const bool arrived = !upstream_failed(ib[j]);
    if (in.arrival == Arrival::assign) {
      if (arrived) ctx.fail(wi.decode(ib[j], dst, m), where);
      continue;
    }
    const std::byte* base = in.base ? in.base + j * wi.chunk_elems() * es : dst;
    const Status st = arrived ? wi.decode(ib[j], tmp.data(), m) : Status{};
    ctx.fail(st, where);
    if (arrived && st.ok()) apply_op_into(ctx.op, wi.dtype(), dst, base, tmp.data(), m);
    // A failed chunk (recorded here or upstream) still leaves defined values to travel on.
    else if (base != dst) std::memcpy(dst, base, m * es);
  }
  return {};
}

}  // namespace commpress::comm::detail

namespace commpress::comm::detail {

OwnedBlock encode_owned(const ReduceContext& ctx, const Wire& wire, const std::byte* data,
                        size_t begin, size_t n) {
  OwnedBlock own{wire, begin, n, std::vector<Bytes>(wire.num_chunks(n))};
  for (size_t j = 0; j < own.chunks.size(); ++j) {
    ctx.fail(wire.encode_exact(data + j * wire.chunk_elems() * wire.elem_size(),
                               wire.chunk_size(n, j), own.chunks[j]),
             "own block chunk " + std::to_string(j) + ": ");
  }
  return own;
}

}  // namespace commpress::comm::detail
