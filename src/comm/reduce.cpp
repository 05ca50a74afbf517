// reduce: the reduction of every rank's vector at root. The ring algorithms and Rabenseifner
// reduce-scatter first and send each finished block's frames to the root; the recursive-
// doubling one combines frames up a binomial tree; hierarchical reduce-scatters as for
// reduce_scatter_block and gathers. recv matters at root only; send == recv at root is
// MPI_IN_PLACE.
#include <climits>
#include <cstring>
#include <vector>

#include "comm/detail/choose_reduce.hpp"
#include "comm/detail/codec_threads.hpp"
#include "comm/detail/hierarchy.hpp"
#include "comm/detail/mpi_dtype.hpp"
#include "comm/detail/private_comm.hpp"
#include "comm/detail/reduce_collective.hpp"
#include "comm/detail/reduce_gather.hpp"
#include "comm/detail/reduce_hierarchical.hpp"
#include "comm/detail/reduce_ops.hpp"
#include "comm/detail/reduce_rabenseifner.hpp"
#include "comm/detail/reduce_recursive_doubling.hpp"
#include "comm/detail/ring_collectives.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::BlockLayout;
using detail::ReduceSession;

Status via_mpi(ReduceSession& s, const void* send, void* recv, size_t n, int root) {
  MPI_Datatype t = detail::mpi_datatype(s.wire().dtype());
  const bool in_place = s.rank() == root && send == recv;
  COMMPRESS_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : send, recv, int(n), t,
                           detail::mpi_op(s.op()), root, s.comm()));
  // MPI's own traffic is not observable: count what a reduce-scatter plus gather sends.
  uint64_t bytes = s.wire().raw_bytes(n) * uint64_t(s.size() - 1) / uint64_t(s.size()) +
                   (s.rank() == root ? 0 : s.wire().raw_bytes(n / s.size()));
  s.traffic().add(bytes, bytes);
  return {};
}

// Ring reduce-scatter, then every finished block's frames to the root.
Status ring_reduce(ReduceSession& s, Algorithm kind, const std::byte* in, const BlockLayout& layout,
                   int root, std::byte* out) {
  COMMPRESS_RETURN_IF_ERROR(s.plan(detail::ring_quantizations(kind, s.size(), true), s.size()));
  auto ctx = s.context();
  detail::OwnedBlock own;
  COMMPRESS_RETURN_IF_ERROR(detail::ring_owned_block(ctx, kind, in, layout, own));
  std::vector<detail::BlockSource> blocks;
  for (int b = 0; b < layout.blocks(); ++b)
    blocks.push_back({b, layout.begin(b), layout.size(b), ctx.wire});
  return detail::gather_to_root(ctx, blocks, &own, root, out);
}

Status run(ReduceSession& s, const std::byte* in, std::byte* out, size_t n, int root,
           Algorithm& ran) {
  const int p = s.size();
  const BlockLayout layout = BlockLayout::even(n, p);
  Algorithm alg = s.algorithm();
  ran = alg;
  if (detail::is_ring(alg)) return ring_reduce(s, alg, in, layout, root, out);
  if (alg == Algorithm::HomomorphicRecursiveDoubling) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({p, p}, p));
    return detail::homomorphic_binomial_reduce(s.context(), in, n, root, out);
  }
  if (alg == Algorithm::Rabenseifner) {
    COMMPRESS_RETURN_IF_ERROR(s.plan(
        detail::rabenseifner_quantizations(s.context(), layout, detail::ReduceEnd::root), p));
    return detail::rabenseifner(s.context(), in, layout, detail::ReduceEnd::root, root, out);
  }
  auto cached = detail::Hierarchy::of(s.comm(), s.pretend_ranks_per_node());
  if (!cached.ok()) return cached.status();
  const detail::Hierarchy* h = *cached;
  if (!h->even()) {
    ran = detail::hierarchical_inner(s.op(), s.wire());
    return ring_reduce(s, ran, in, layout, root, out);
  }
  COMMPRESS_RETURN_IF_ERROR(
      s.plan(detail::hierarchical_quantizations(*h, s.op(), s.wire(), true), p));
  return detail::hierarchical_reduce(s.context(), *h, in, layout, root, out);
}

}  // namespace

Result<Report> reduce(const void* send, void* recv, size_t count, Dtype dtype, Op op, int root,
                      MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_reduce(opts, send, count, dtype, op, root, comm);
  auto session = ReduceSession::begin(
      comm, {model::Operation::reduce, "reduce", count, dtype, op, root, true, send, count}, choice,
      [&](const detail::Collective& c) -> Status {
        if (count > 0 && (send == nullptr || (c.rank == root && recv == nullptr)))
          return {ErrorCode::invalid_argument, "reduce: null buffer with a non-zero count"};
        if (count > size_t(INT_MAX) && c.algorithm == Algorithm::Hierarchical)
          return {ErrorCode::unsupported, "reduce: hierarchical takes at most 2^31-1 elements"};
        return {};
      });
  if (!session.ok()) return session.status();
  ReduceSession& s = **session;
  if (s.algorithm() == Algorithm::Mpi) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({}, s.size()));
    return s.end(via_mpi(s, send, recv, count, root), Algorithm::Mpi);
  }
  if (s.size() == 1) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({}, 1));
    if (send != recv && count) std::memcpy(recv, send, count * s.wire().elem_size());
    return s.end({}, s.algorithm());
  }
  Algorithm ran = s.algorithm();
  Status st = run(s, static_cast<const std::byte*>(send), static_cast<std::byte*>(recv), count,
                  root, ran);
  return s.end(st, ran);
}

}  // namespace commpress::comm
