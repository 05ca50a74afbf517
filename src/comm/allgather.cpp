// allgather (C-Coll): each rank compresses its own block once; the frames then circulate
// unchanged and every rank decodes all p blocks, its own included, so every rank ends with
// the very same array (each block within the one compression's bound of its owner's data).
// Ring: algorithms/ccoll_ring_allgather.cpp; RecursiveDoubling: algorithms/bruck_allgather.cpp.
#include <algorithm>
#include <cstring>
#include <functional>

#include "comm/algorithms/bruck_allgather.hpp"
#include "comm/algorithms/ccoll_ring_allgather.hpp"
#include "comm/algorithms/shared_window.hpp"
#include "comm/selection/choose.hpp"
#include "comm/selection/planning.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::Buffer;

Status compressed(const detail::Collective& c, const void* own, std::byte* recv, size_t n,
                  detail::Traffic& traffic) {
  Status first;
  Buffer mine;
  detail::keep_first(first, c.wire.encode_block(own, n, mine), "own block: ");
  Status st = c.algorithm == Algorithm::Ring
                  ? detail::ccoll_ring_allgather(c, std::move(mine), recv, n, traffic, first)
                  : detail::bruck_allgather(c, std::move(mine), recv, n, traffic, first);
  return st.ok() ? first : st;
}

Status via_mpi(const detail::Collective& c, const void* send, void* recv, size_t n,
               detail::Traffic& traffic) {
  MPI_Datatype t = detail::mpi_datatype(c.wire.dtype());
  const void* in = send == recv ? MPI_IN_PLACE : send;
  COMMPRESS_MPI(detail::collective_yielding(
      [&] { return MPI_Allgather(in, int(n), t, recv, int(n), t, c.comm); },
      [&](MPI_Request* req) { return MPI_Iallgather(in, int(n), t, recv, int(n), t, c.comm, req); }));
  // MPI's own traffic is not observable: count what a ring sends uncompressed.
  uint64_t bytes = c.wire.raw_bytes(n) * uint64_t(c.size - 1);
  traffic.add(bytes, bytes);
  return {};
}

size_t largest_message(const detail::Collective& c, size_t n) {
  if (c.algorithm != Algorithm::RecursiveDoubling) return c.wire.block_capacity(n);
  return detail::bruck_largest_message(c, n);
}

// The call's agreement and its plan (given: a plan made earlier, to agree on); plan_only
// stops there and needs no recv.
Result<detail::PlannedCall> agree_and_plan(const void* send, const void* recv, size_t n, Dtype dtype,
                               MPI_Comm comm, detail::Choice& choice,
                               const CollectivePlan* given, bool plan_only) {
  // Passing recv as send means MPI_IN_PLACE: this rank's block already sits in recv.
  const void* own = send;
  if (send == recv && recv) {
    const int rank = detail::place_in(comm).rank;  // (-1: begin_collective fails)
    own = rank < 0 ? nullptr
                   : static_cast<const std::byte*>(recv) + size_t(rank) * n * codec::dtype_size(dtype);
  }
  detail::AgreementExtras range = detail::range_extras(choice, dtype, own, n);
  auto c = detail::begin_collective(
      comm, {model::Operation::allgather, "allgather", n, dtype, 0, false, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (given)
          COMMPRESS_RETURN_IF_ERROR(
              detail::matches_plan(*given, model::Operation::allgather, "allgather", c.size));
        if (n > 0 && (send == nullptr || (!plan_only && recv == nullptr)))
          return {ErrorCode::invalid_argument, "allgather: null buffer with a non-zero count"};
        return detail::check_message_size(largest_message(c, n), "allgather");
      },
      &range);
  if (!c.ok()) return c.status();
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, range, own, n));
  AgreedCall call;
  call.operation = model::Operation::allgather;
  call.count = n;
  call.dtype = dtype;
  // The bound: resolved against every rank's block.
  return detail::plan_movement(*c, call, choice, given);
}

Result<Report> execute(const detail::PlannedCall& p, const void* send, void* recv) {
  const detail::Collective& c = p.c;
  const size_t n = p.plan.count;
  auto* out = static_cast<std::byte*>(recv);
  const void* own = send == recv ? out + size_t(c.rank) * n * c.wire.elem_size() : send;
  detail::Traffic traffic;
  Status local;
  if (c.algorithm == Algorithm::Mpi) {
    local = via_mpi(c, send, recv, n, traffic);
  } else if (c.algorithm == Algorithm::SharedWindow) {
    local = detail::shared_window_allgather(c.comm, c.wire.elem_size(),
                                            static_cast<const std::byte*>(own), out, n);
    // Each rank writes its block into shared memory once.
    traffic.add(c.wire.raw_bytes(n), c.wire.raw_bytes(n));
  } else {
    local = compressed(c, own, out, n, traffic);
  }
  return detail::end_planned(p, local, traffic);
}

}  // namespace

Result<Report> allgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                         MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_allgather(opts, send, recv, count_per_rank, dtype, comm);
  auto p = agree_and_plan(send, recv, count_per_rank, dtype, comm, choice, nullptr, false);
  if (!p.ok()) return p.status();
  return execute(*p, send, recv);
}

Result<Report> allgather(const CollectivePlan& plan, const void* send, void* recv,
                         MPI_Comm comm) {
  const detail::CodecThreads threads;
  auto choice = detail::choice_of(plan);
  auto p = agree_and_plan(send, recv, plan.count, plan.dtype, comm, choice, &plan, false);
  if (!p.ok()) return p.status();
  return execute(*p, send, recv);
}

Result<CollectivePlan> plan_allgather(const void* send, size_t count_per_rank, Dtype dtype,
                                      MPI_Comm comm, const Options& opts) {
  auto choice = detail::choose_allgather(opts, send, nullptr, count_per_rank, dtype, comm);
  auto p = agree_and_plan(send, nullptr, count_per_rank, dtype, comm, choice, nullptr, true);
  if (!p.ok()) return p.status();
  return std::move(p->plan);
}

}  // namespace commpress::comm
