// allreduce: every algorithm of the reductions (docs/algorithms.md), each a reduce-scatter
// followed by an allgather of the finished blocks' frames (the recursive-doubling one
// combines whole vectors instead). Every rank decodes the same frames, so all ranks hold
// identical results. send == recv is MPI_IN_PLACE: every algorithm reads all of its input
// before it writes any result.
#include <climits>
#include <cstring>

#include "comm/detail/choose_reduce.hpp"
#include "comm/detail/codec_threads.hpp"
#include "comm/detail/hierarchy.hpp"
#include "comm/detail/mpi_dtype.hpp"
#include "comm/detail/private_comm.hpp"
#include "comm/detail/reduce_collective.hpp"
#include "comm/detail/reduce_hierarchical.hpp"
#include "comm/detail/reduce_ops.hpp"
#include "comm/detail/reduce_rabenseifner.hpp"
#include "comm/detail/reduce_recursive_doubling.hpp"
#include "comm/detail/ring_collectives.hpp"
#include "comm/detail/shared_window.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::BlockLayout;
using detail::ReduceSession;

Status via_mpi(ReduceSession& s, const void* send, void* recv, size_t n) {
  MPI_Datatype t = detail::mpi_datatype(s.wire().dtype());
  const bool in_place = send == recv || s.input_in_output();
  if (s.input_slot()) send = s.input_slot();
  COMMPRESS_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, int(n), t,
                              detail::mpi_op(s.op()), s.comm()));
  // MPI's own traffic is not observable: count what a ring allreduce sends.
  uint64_t bytes = s.wire().raw_bytes(n) * 2 * uint64_t(s.size() - 1) / uint64_t(s.size());
  s.traffic().add(bytes, bytes);
  return {};
}

Status via_shared_window(ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
  const std::byte* input = s.input_slot() ? s.input_slot() : s.input_in_output() ? out : in;
  COMMPRESS_RETURN_IF_ERROR(detail::shared_window_allreduce(s.comm(), s.op(), s.wire().dtype(),
                                                            input, out, n, s.inputs_in_slots()));
  // Each rank writes its vector into shared memory once and reads the result once.
  const uint64_t bytes = s.wire().raw_bytes(n);
  s.traffic().add(bytes, bytes);
  return {};
}

// Runs the chosen algorithm; returns what actually ran through `ran`.
Status run(ReduceSession& s, const std::byte* in, std::byte* out, size_t n, Algorithm& ran) {
  const int p = s.size();
  const BlockLayout layout = BlockLayout::even(n, p);
  Algorithm alg = s.algorithm();
  ran = alg;
  if (detail::is_ring(alg)) {
    COMMPRESS_RETURN_IF_ERROR(s.plan(detail::ring_quantizations(alg, p, true), p));
    return detail::ring_allreduce(s.context(), alg, in, layout, out);
  }
  if (alg == Algorithm::HomomorphicRecursiveDoubling) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({p, p}, p));
    return detail::homomorphic_recursive_doubling(s.context(), in, n, out);
  }
  if (alg == Algorithm::Rabenseifner) {
    COMMPRESS_RETURN_IF_ERROR(s.plan(
        detail::rabenseifner_quantizations(s.context(), layout, detail::ReduceEnd::all), p));
    return detail::rabenseifner(s.context(), in, layout, detail::ReduceEnd::all, 0, out);
  }
  // Hierarchical; uneven nodes run the cross-node ring over everyone.
  auto cached = detail::Hierarchy::of(s.comm(), s.pretend_ranks_per_node());
  if (!cached.ok()) return cached.status();
  const detail::Hierarchy* h = *cached;
  if (!h->even()) {
    ran = detail::hierarchical_inner(s.op(), s.wire());
    COMMPRESS_RETURN_IF_ERROR(s.plan(detail::ring_quantizations(ran, p, true), p));
    return detail::ring_allreduce(s.context(), ran, in, layout, out);
  }
  COMMPRESS_RETURN_IF_ERROR(
      s.plan(detail::hierarchical_quantizations(*h, s.op(), s.wire(), true), p));
  return detail::hierarchical_allreduce(s.context(), *h, in, n, out);
}

}  // namespace

Result<Report> allreduce(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                         MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_allreduce(opts, send, count, dtype, op, comm);
  static constexpr Algorithm kUncompressed[] = {Algorithm::SharedWindow};
  auto session = ReduceSession::begin(
      comm, {model::Operation::allreduce, "allreduce", count, dtype, op, 0, false, send, count, recv,
       kUncompressed}, choice,
      [&](const detail::Collective& c) -> Status {
        if (count > 0 && (send == nullptr || recv == nullptr))
          return {ErrorCode::invalid_argument, "allreduce: null buffer with a non-zero count"};
        if (count > size_t(INT_MAX) && c.algorithm == Algorithm::Hierarchical)
          return {ErrorCode::unsupported, "allreduce: hierarchical takes at most 2^31-1 elements"};
        if (c.algorithm == Algorithm::Rabenseifner)  // the doubling phase's largest message
          return detail::check_message_size(2 * c.wire.block_capacity(count), "allreduce");
        return {};
      });
  if (!session.ok()) return session.status();
  ReduceSession& s = **session;
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (s.algorithm() == Algorithm::Mpi) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({}, s.size()));
    return s.end(via_mpi(s, send, recv, count), Algorithm::Mpi);
  }
  if (s.algorithm() == Algorithm::SharedWindow) {
    COMMPRESS_RETURN_IF_ERROR(s.plan({}, s.size()));
    return s.end(via_shared_window(s, in, out, count), Algorithm::SharedWindow);
  }
  if (s.size() == 1) {  // nothing to reduce with: the input is the exact result
    COMMPRESS_RETURN_IF_ERROR(s.plan({}, 1));
    if (send != recv && count && !s.input_in_output())
      std::memcpy(recv, send, count * s.wire().elem_size());
    return s.end({}, s.algorithm());
  }
  Algorithm ran = s.algorithm();
  Status st = run(s, in, out, count, ran);
  return s.end(st, ran);
}

}  // namespace commpress::comm
