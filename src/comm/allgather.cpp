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
#include "comm/detail/choose.hpp"
#include "comm/detail/codec_threads.hpp"
#include "comm/detail/collective.hpp"
#include "comm/detail/mpi_dtype.hpp"
#include "comm/detail/private_comm.hpp"
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
  COMMPRESS_MPI(MPI_Allgather(send == recv ? MPI_IN_PLACE : send, int(n), t, recv, int(n), t,
                              c.comm));
  // MPI's own traffic is not observable: count what a ring sends uncompressed.
  uint64_t bytes = c.wire.raw_bytes(n) * uint64_t(c.size - 1);
  traffic.add(bytes, bytes);
  return {};
}

size_t largest_message(const detail::Collective& c, size_t n) {
  if (c.algorithm != Algorithm::RecursiveDoubling) return c.wire.block_capacity(n);
  return detail::bruck_largest_message(c, n);
}

}  // namespace

Result<Report> allgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                         MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  auto choice = detail::choose_allgather(opts, send, recv, count_per_rank, dtype, comm);
  const size_t n = count_per_rank;
  auto c = detail::begin_collective(
      comm, {model::Operation::allgather, "allgather", n, dtype, 0, false, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (n > 0 && (send == nullptr || recv == nullptr))
          return {ErrorCode::invalid_argument, "allgather: null buffer with a non-zero count"};
        return detail::check_message_size(largest_message(c, n), "allgather");
      });
  if (!c.ok()) return c.status();
  auto* out = static_cast<std::byte*>(recv);
  // Passing recv as send means MPI_IN_PLACE: this rank's block already sits in recv.
  const void* own = send == recv ? out + c->rank * n * c->wire.elem_size() : send;
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, own, n));
  detail::Traffic traffic;
  Status local;
  if (c->algorithm == Algorithm::Mpi) {
    local = via_mpi(*c, send, recv, n, traffic);
  } else if (c->algorithm == Algorithm::SharedWindow) {
    local = detail::shared_window_allgather(c->comm, c->wire.elem_size(),
                                            static_cast<const std::byte*>(own), out, n);
    // Each rank writes its block into shared memory once.
    traffic.add(c->wire.raw_bytes(n), c->wire.raw_bytes(n));
  } else {
    local = compressed(*c, own, out, n, traffic);
  }
  return detail::with_prediction(detail::end_collective(*c, local, traffic), choice);
}

}  // namespace commpress::comm
