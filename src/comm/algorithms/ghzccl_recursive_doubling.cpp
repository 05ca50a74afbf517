#include "comm/algorithms/ghzccl_recursive_doubling.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "comm/algorithms/parts/binomial_tree.hpp"
#include "comm/algorithms/parts/reduce_fold.hpp"
#include "comm/algorithms/runner.hpp"
#include "commpress/homomorphic.hpp"

namespace commpress::comm::detail {

namespace {

// Partners agree on a hop's tag whatever hops came before it on either side.
constexpr int kFoldTag = 0x440;
constexpr int kDoublingTag = 0x441;  // + log2(mask)
constexpr int kUnfoldTag = 0x45f;
constexpr int kTreeTag = 0x460;

// One exchange of the butterfly: send the current frame to dest, receive from src, then
// combine (or, for a rank that sat out, take the received frame as the result).
struct Hop {
  int dest, src;
  bool combine;
  int tag;
};

std::vector<Hop> butterfly(int rank, int size) {
  const Fold f(size);
  std::vector<Hop> hops;
  if (f.sits_out(rank))
    return {{rank + 1, MPI_PROC_NULL, false, kFoldTag}, {MPI_PROC_NULL, rank + 1, false, kUnfoldTag}};
  if (f.folded(rank)) hops.push_back({MPI_PROC_NULL, rank - 1, true, kFoldTag});
  const int v = f.newrank(rank);
  for (int mask = 1, k = 0; mask < f.p2; mask *= 2, ++k) {
    int partner = f.rank_of(v ^ mask);
    hops.push_back({partner, partner, true, kDoublingTag + k});
  }
  if (f.folded(rank)) hops.push_back({rank - 1, MPI_PROC_NULL, false, kUnfoldTag});
  return hops;
}

// The frames of this rank's vector, one per chunk (empty where encoding failed).
std::vector<Bytes> encode_all(const ReduceContext& ctx, const std::byte* input, size_t n) {
  const Wire& w = ctx.wire;
  std::vector<Bytes> f(w.num_chunks(n));
  for (size_t j = 0; j < f.size(); ++j) {
    ctx.fail(w.encode_exact(input + j * w.chunk_elems() * w.elem_size(), w.chunk_size(n, j), f[j]),
             "chunk " + std::to_string(j) + ": ");
  }
  return f;
}

void decode_chunk(const ReduceContext& ctx, const Bytes& frame, size_t n, size_t j,
                  std::byte* out) {
  const Wire& w = ctx.wire;
  if (upstream_failed(frame)) return;
  ctx.fail(w.decode(frame, out + j * w.chunk_elems() * w.elem_size(), w.chunk_size(n, j)),
           "result chunk " + std::to_string(j) + ": ");
}

// frame = frame + in (both szp frames); an empty frame marks an earlier failure.
void combine_into(const ReduceContext& ctx, Bytes& frame, std::span<const std::byte> in,
                  codec::Workspace& ws, const std::string& where) {
  if (upstream_failed(frame) || upstream_failed(in)) {
    frame.clear();
    return;
  }
  Status st = codec::combine(frame, in, codec::CombineOp::sum, frame, ws);
  if (!st.ok()) frame.clear();
  ctx.fail(st, where);
}

}  // namespace

Status homomorphic_recursive_doubling(const ReduceContext& ctx, const std::byte* input, size_t n,
                                      std::byte* out) {
  const Wire& w = ctx.wire;
  const auto hops = butterfly(ctx.rank, ctx.size);
  const size_t chunks = w.num_chunks(n);
  std::vector<Bytes> frame = encode_all(ctx, input, n);
  std::vector<Buffer> in(chunks);
  std::vector<PendingExchange> x(chunks);
  codec::Workspace ws;
  auto start = [&](size_t s, size_t j) {
    const Hop& h = hops[s];
    const uint64_t raw = w.raw_bytes(w.chunk_size(n, j));
    return x[j].start(h.dest == MPI_PROC_NULL ? std::span<const std::byte>() : frame[j], raw,
                      h.dest, in[j], w.frame_capacity(w.chunk_size(n, j)), h.src,
                      h.tag, ctx.comm, ctx.traffic);
  };
  if (hops.empty()) {
    for (size_t j = 0; j < chunks; ++j) decode_chunk(ctx, frame[j], n, j, out);
    return {};
  }
  for (size_t j = 0; j < chunks; ++j) COMMPRESS_RETURN_IF_ERROR(start(0, j));
  for (size_t s = 0; s < hops.size(); ++s) {
    const Hop& h = hops[s];
    const std::string where = "step " + std::to_string(s) + " from rank " + std::to_string(h.src) + ": ";
    for (size_t j = 0; j < chunks; ++j) {
      COMMPRESS_RETURN_IF_ERROR(x[j].finish());
      if (h.src != MPI_PROC_NULL) {
        if (h.combine) combine_into(ctx, frame[j], in[j], ws, where);
        else frame[j].assign(in[j].begin(), in[j].end());
      }
      if (s + 1 < hops.size()) COMMPRESS_RETURN_IF_ERROR(start(s + 1, j));
      else decode_chunk(ctx, frame[j], n, j, out);
    }
  }
  return {};
}

Status homomorphic_binomial_reduce(const ReduceContext& ctx, const std::byte* input, size_t n,
                                   int root, std::byte* out) {
  const Wire& w = ctx.wire;
  const BinomialTree tree(ctx.rank, ctx.size, root);
  // Smallest subtree first: those frames are ready soonest.
  auto kids = tree.children_ranks();
  std::vector<int> children(kids.rbegin(), kids.rend());
  const size_t chunks = w.num_chunks(n);
  std::vector<Bytes> frame = encode_all(ctx, input, n);
  std::vector<std::vector<Buffer>> in(children.size(), std::vector<Buffer>(chunks));
  std::vector<std::vector<PendingExchange>> recvs(children.size(),
                                                  std::vector<PendingExchange>(chunks));
  for (size_t c = 0; c < children.size(); ++c)
    for (size_t j = 0; j < chunks; ++j)
      COMMPRESS_RETURN_IF_ERROR(recvs[c][j].start({}, 0, MPI_PROC_NULL, in[c][j],
                                                  w.frame_capacity(w.chunk_size(n, j)),
                                                  children[c], kTreeTag, ctx.comm, ctx.traffic));
  codec::Workspace ws;
  std::vector<MPI_Request> sends(chunks, MPI_REQUEST_NULL);
  for (size_t j = 0; j < chunks; ++j) {
    for (size_t c = 0; c < children.size(); ++c) {
      COMMPRESS_RETURN_IF_ERROR(recvs[c][j].finish());
      combine_into(ctx, frame[j], in[c][j], ws,
                   "chunk " + std::to_string(j) + " from rank " + std::to_string(children[c]) + ": ");
      Buffer().swap(in[c][j]);
    }
    if (ctx.rank == root) decode_chunk(ctx, frame[j], n, j, out);
    else
      COMMPRESS_RETURN_IF_ERROR(isend_message(frame[j], w.raw_bytes(w.chunk_size(n, j)),
                                              tree.parent_rank(), kTreeTag, ctx.comm, &sends[j],
                                              ctx.traffic));
  }
  return wait_all(sends);
}

namespace {

Status run_allreduce(ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
  return homomorphic_recursive_doubling(s.context(), in, n, out);
}

// The whole vector's reduction, of which this rank keeps its block.
Status run_reduce_scatter(ReduceSession& s, const std::byte* in, std::byte* out, size_t m) {
  const BlockLayout layout = BlockLayout::uniform(m, s.size());
  const size_t es = s.wire().elem_size();
  Buffer all(layout.total() * es);
  COMMPRESS_RETURN_IF_ERROR(
      homomorphic_recursive_doubling(s.context(), in, layout.total(), all.data()));
  if (m) std::memcpy(out, all.data() + layout.begin(s.rank()) * es, m * es);
  return {};
}

Status run_reduce(ReduceSession& s, const std::byte* in, std::byte* out, size_t n, int root) {
  return homomorphic_binomial_reduce(s.context(), in, n, root, out);
}

// Every input is quantized once; only integers are added afterwards.
QuantizationCount quantizations(const ReduceShape& shape) { return {shape.ranks, shape.ranks}; }

}  // namespace

const Runner ghzccl_recursive_doubling{run_allreduce, run_reduce_scatter, run_reduce,
                                       quantizations};

}  // namespace commpress::comm::detail
