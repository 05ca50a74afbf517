#include "comm/algorithms/argm_hierarchical.hpp"

#include <climits>
#include <cstring>

#include "comm/algorithms/parts/reduce_exchange.hpp"
#include "comm/algorithms/parts/reduce_gather.hpp"
#include "comm/algorithms/parts/reduce_ops.hpp"
#include "comm/algorithms/parts/ring_reductions.hpp"
#include "comm/algorithms/runner.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "core/assert.hpp"

namespace commpress::comm::detail {

namespace {

std::vector<int> int_counts(const BlockLayout& l) {
  std::vector<int> c;
  for (int b = 0; b < l.blocks(); ++b) c.push_back(int(l.size(b)));
  return c;
}

// Raw reduce-scatter inside the node (MPI's own): this rank gets its block of parts, reduced
// over the node. MPI's traffic is not observable: count what a ring would send.
Status node_reduce_scatter(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                           const BlockLayout& parts, std::byte* mine) {
  auto counts = int_counts(parts);
  const Wire& w = ctx.wire;
  COMMPRESS_MPI(MPI_Reduce_scatter(input, mine, counts.data(), mpi_datatype(w.dtype()),
                                   mpi_op(ctx.op), h.node()));
  uint64_t bytes = w.raw_bytes(parts.total() - parts.size(h.local_rank()));
  ctx.traffic.add(bytes, bytes);
  return {};
}

// The cross-node group: ranks of equal local rank, numbered by node.
ReduceContext across(const ReduceContext& ctx, const Hierarchy& h) {
  return ctx.on(h.cross(), h.node_index(), h.nodes());
}

// The column of local rank l: the blocks of ranks (k, l) for every node k, reduced over this
// node, in node order.
Status node_columns(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                    const BlockLayout& layout, Buffer& column, BlockLayout& column_layout) {
  const int L = h.local_size(), N = h.nodes();
  const size_t es = ctx.wire.elem_size();
  Buffer packed(layout.total() * es);
  std::vector<size_t> part_sizes(L, 0), column_sizes;
  size_t pos = 0;
  for (int l = 0; l < L; ++l)
    for (int k = 0; k < N; ++k) {
      int b = h.rank_of(k, l);
      if (layout.size(b)) std::memcpy(packed.data() + pos * es, input + layout.begin(b) * es,
                                      layout.size(b) * es);
      pos += layout.size(b);
      part_sizes[l] += layout.size(b);
      if (l == h.local_rank()) column_sizes.push_back(layout.size(b));
    }
  column.resize(part_sizes[h.local_rank()] * es);
  column_layout = BlockLayout::of_sizes(column_sizes);
  return node_reduce_scatter(ctx, h, packed.data(), BlockLayout::of_sizes(part_sizes),
                             column.data());
}

}  // namespace

Algorithm hierarchical_inner(Op op, const Wire& wire) {
  bool szp = wire.codec() && wire.codec()->id() == codec::CodecId::szp;
  return op == Op::sum && szp ? Algorithm::HomomorphicRing : Algorithm::DocRing;
}

QuantizationCount hierarchical_quantizations(int nodes, Op op, const Wire& wire,
                                             bool final_frames) {
  // Inside a node everything is raw: only the N-rank ring across nodes quantizes.
  return ring_quantizations(hierarchical_inner(op, wire), nodes, final_frames);
}

Status hierarchical_allreduce(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                              size_t n, std::byte* out) {
  COMMPRESS_ASSERT(h.even());
  const size_t es = ctx.wire.elem_size();
  const BlockLayout parts = BlockLayout::even(n, h.local_size());
  const size_t m = parts.size(h.local_rank());
  Buffer mine(m * es);
  COMMPRESS_RETURN_IF_ERROR(node_reduce_scatter(ctx, h, input, parts, mine.data()));
  if (h.nodes() > 1)
    COMMPRESS_RETURN_IF_ERROR(ring_allreduce(across(ctx, h), hierarchical_inner(ctx.op, ctx.wire),
                                             mine.data(), BlockLayout::even(m, h.nodes()),
                                             mine.data()));
  auto counts = int_counts(parts);
  std::vector<int> displs;
  for (int b = 0; b < parts.blocks(); ++b) displs.push_back(int(parts.begin(b)));
  MPI_Datatype t = mpi_datatype(ctx.wire.dtype());
  COMMPRESS_MPI(MPI_Allgatherv(mine.data(), int(m), t, out, counts.data(), displs.data(), t,
                               h.node()));
  uint64_t bytes = ctx.wire.raw_bytes(m) * uint64_t(h.local_size() - 1);
  ctx.traffic.add(bytes, bytes);
  return {};
}

Status hierarchical_reduce_scatter(const ReduceContext& ctx, const Hierarchy& h,
                                   const std::byte* input, const BlockLayout& layout,
                                   std::byte* out) {
  COMMPRESS_ASSERT(h.even());
  Buffer column;
  BlockLayout cl;
  COMMPRESS_RETURN_IF_ERROR(node_columns(ctx, h, input, layout, column, cl));
  if (h.nodes() == 1) {
    if (!column.empty()) std::memcpy(out, column.data(), column.size());
    return {};
  }
  return ring_reduce_scatter_values(across(ctx, h), hierarchical_inner(ctx.op, ctx.wire),
                                    column.data(), cl, out);
}

Status hierarchical_reduce(const ReduceContext& ctx, const Hierarchy& h, const std::byte* input,
                           const BlockLayout& layout, int root, std::byte* out) {
  COMMPRESS_ASSERT(h.even());
  Buffer column;
  BlockLayout cl;
  COMMPRESS_RETURN_IF_ERROR(node_columns(ctx, h, input, layout, column, cl));
  // One node: nothing was quantized, and the blocks go to the root raw.
  const Wire w = h.nodes() == 1 ? ctx.raw_wire() : ctx.wire;
  OwnedBlock own;
  if (h.nodes() == 1)
    own = encode_owned(ctx, w, column.data(), layout.begin(ctx.rank), layout.size(ctx.rank));
  else
    COMMPRESS_RETURN_IF_ERROR(ring_owned_block(across(ctx, h), hierarchical_inner(ctx.op, ctx.wire),
                                               column.data(), cl, own));
  std::vector<BlockSource> blocks;
  for (int b = 0; b < layout.blocks(); ++b)
    blocks.push_back({b, layout.begin(b), layout.size(b), w});
  return gather_to_root(ctx, blocks, &own, root, out);
}

namespace {

// The session's hierarchy, whose nodes the plan found even (the plan runs the cross-node ring
// over everyone otherwise, and this runner is not called).
Result<const Hierarchy*> even_nodes(ReduceSession& s) {
  auto h = Hierarchy::of(s.comm(), s.pretend_ranks_per_node());
  if (!h.ok()) return h.status();
  COMMPRESS_ASSERT((*h)->even() && (*h)->nodes() == s.plan().nodes.nodes);
  return *h;
}

Status run_allreduce(ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
  auto h = even_nodes(s);
  if (!h.ok()) return h.status();
  return hierarchical_allreduce(s.context(), **h, in, n, out);
}

Status run_reduce_scatter(ReduceSession& s, const std::byte* in, std::byte* out, size_t m) {
  auto h = even_nodes(s);
  if (!h.ok()) return h.status();
  return hierarchical_reduce_scatter(s.context(), **h, in, BlockLayout::uniform(m, s.size()), out);
}

Status run_reduce(ReduceSession& s, const std::byte* in, std::byte* out, size_t n, int root) {
  auto h = even_nodes(s);
  if (!h.ok()) return h.status();
  return hierarchical_reduce(s.context(), **h, in, BlockLayout::even(n, s.size()), root, out);
}

QuantizationCount quantizations(const ReduceShape& shape) {
  return hierarchical_quantizations(shape.nodes, shape.op, shape.wire,
                                    shape.operation != model::Operation::reduce_scatter);
}

}  // namespace

const Runner argm_hierarchical{run_allreduce, run_reduce_scatter, run_reduce, quantizations};

}  // namespace commpress::comm::detail
