// alltoall, alltoallv: every rank sends a different block to every rank. Each destination's
// block is compressed once by its owner and decoded once at its destination (so every element
// delivered is within the one compression's bound of the sender's data); the own block is
// copied exactly. Pairwise exchange (algorithms/pairwise_alltoall.cpp) or Bruck
// (algorithms/bruck_alltoall.cpp), chosen by the model for alltoall. alltoallv runs MPI's own
// or pairwise exchange: Auto compresses it whenever the options name a codec (the model prices
// equal blocks only), and its counts are checked pairwise after the agreement, so a send count
// that does not match its receiver's count fails every rank before any block moves.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "comm/algorithms/bruck_alltoall.hpp"
#include "comm/algorithms/pairwise_alltoall.hpp"
#include "comm/selection/choose.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::AlltoallLayout;
using detail::Buffer;

AlltoallLayout equal_blocks(size_t n, int p) {
  AlltoallLayout l{std::vector<size_t>(size_t(p), n), std::vector<size_t>(size_t(p))};
  for (int r = 0; r < p; ++r) l.displ[size_t(r)] = size_t(r) * n;
  return l;
}

// Every destination's block encoded once (the own block is not: it is copied), then the
// schedule moves the frames.
Status compressed(const detail::Collective& c, const std::byte* send, const AlltoallLayout& sent,
                  std::byte* recv, const AlltoallLayout& got, detail::Traffic& traffic) {
  const size_t elem = c.wire.elem_size();
  Status first;
  std::vector<Buffer> frames(size_t(c.size));
  for (int d = 0; d < c.size; ++d)
    if (d != c.rank)
      detail::keep_first(first,
                         c.wire.encode_block(send + sent.displ[size_t(d)] * elem,
                                             sent.count[size_t(d)], frames[size_t(d)]),
                         "block for rank " + std::to_string(d) + ": ");
  const size_t me = size_t(c.rank);
  // An empty block may come with null buffers, which memmove must not see.
  if (got.count[me] != 0 && send + sent.displ[me] * elem != recv + got.displ[me] * elem)
    std::memmove(recv + got.displ[me] * elem, send + sent.displ[me] * elem, got.count[me] * elem);
  Status st = c.algorithm == Algorithm::Bruck
                  ? detail::bruck_alltoall(c, std::move(frames), recv, got.count[0], traffic, first)
                  : detail::pairwise_alltoall(c, frames, sent.count, recv, got, traffic, first);
  return st.ok() ? first : st;
}

uint64_t others(const AlltoallLayout& l, int rank) {
  uint64_t total = 0;
  for (size_t r = 0; r < l.count.size(); ++r)
    if (int(r) != rank) total += l.count[r];
  return total;
}

}  // namespace

Result<Report> alltoall(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                        MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  const size_t n = count_per_rank;
  int p = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);
  // The data Auto samples and a REL bound ranges over: every block this rank sends.
  const void* data = send == recv ? recv : send;
  detail::SelectCall call{model::Operation::alltoall, n, dtype};
  const bool readable = data && detail::count_fits(n, dtype, size_t(p));
  call.data = readable ? data : nullptr;
  call.data_count = readable ? n * size_t(p) : 0;
  auto choice = detail::choose_collective(call, opts, p);
  detail::AgreementExtras range = detail::range_extras(choice, dtype, call.data, call.data_count);
  auto c = detail::begin_collective(
      comm, {model::Operation::alltoall, "alltoall", n, dtype, 0, false, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (n > 0 && (send == nullptr || recv == nullptr))
          return {ErrorCode::invalid_argument, "alltoall: null buffer with a non-zero count"};
        return detail::check_message_size(
            c.algorithm == Algorithm::Bruck ? detail::bruck_alltoall_largest_message(c, n)
                                            : c.wire.block_capacity(n),
            "alltoall");
      },
      &range);
  if (!c.ok()) return c.status();
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, range, data, n * size_t(c->size)));
  detail::Traffic traffic;
  Status local;
  const AlltoallLayout blocks = equal_blocks(n, c->size);
  if (c->algorithm == Algorithm::Mpi) {
    MPI_Datatype t = detail::mpi_datatype(c->wire.dtype());
    COMMPRESS_MPI(MPI_Alltoall(send == recv ? MPI_IN_PLACE : send, int(n), t, recv, int(n), t,
                               c->comm));
    // MPI's own traffic is not observable: count what pairwise exchange sends raw.
    const uint64_t bytes = c->wire.raw_bytes(others(blocks, c->rank));
    traffic.add(bytes, bytes);
  } else {
    local = compressed(*c, static_cast<const std::byte*>(data), blocks,
                       static_cast<std::byte*>(recv), blocks, traffic);
  }
  return detail::with_prediction(detail::end_collective(*c, local, traffic), choice);
}

namespace {

Status check_layout(const char* which, std::span<const size_t> counts,
                    std::span<const size_t> displs, int p, Dtype dtype, AlltoallLayout& out) {
  if (counts.size() != size_t(p) || displs.size() != size_t(p))
    return {ErrorCode::invalid_argument, std::string("alltoallv: ") + which + " counts and displs need " +
                                             std::to_string(p) + " entries each"};
  out.count.assign(counts.begin(), counts.end());
  out.displ.assign(displs.begin(), displs.end());
  for (int r = 0; r < p; ++r) {
    COMMPRESS_RETURN_IF_ERROR(detail::check_count("alltoallv", counts[size_t(r)], dtype));
    COMMPRESS_RETURN_IF_ERROR(detail::check_count("alltoallv", displs[size_t(r)], dtype));
  }
  return {};
}

// Collective on the agreed communicator: what each rank sends this one must be what this one
// expects from it.
Status check_pairs(const detail::Collective& c, const AlltoallLayout& sent, const AlltoallLayout& got,
                   const Status& local) {
  std::vector<uint64_t> mine(sent.count.begin(), sent.count.end()), theirs(size_t(c.size));
  if (!local.ok()) mine.assign(size_t(c.size), 0);
  COMMPRESS_MPI(MPI_Alltoall(mine.data(), 1, MPI_UINT64_T, theirs.data(), 1, MPI_UINT64_T, c.comm));
  if (!local.ok()) return local;
  for (int r = 0; r < c.size; ++r)
    if (theirs[size_t(r)] != got.count[size_t(r)])
      return {ErrorCode::mismatch, "alltoallv: rank " + std::to_string(r) + " sends " +
                                       std::to_string(theirs[size_t(r)]) + " elements to rank " +
                                       std::to_string(c.rank) + ", which expects " +
                                       std::to_string(got.count[size_t(r)])};
  return {};
}

}  // namespace

Result<Report> alltoallv(const void* send, std::span<const size_t> send_counts,
                         std::span<const size_t> send_displs, void* recv,
                         std::span<const size_t> recv_counts, std::span<const size_t> recv_displs,
                         Dtype dtype, MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  detail::Choice choice;
  choice.options = opts;
  choice.algorithm = opts.algorithm;
  if (opts.algorithm == Algorithm::Auto)
    choice.algorithm = detail::codec_choice(opts, dtype) == "none" ? Algorithm::Mpi : Algorithm::Pairwise;
  AlltoallLayout sent, got;
  Status layout;
  auto c = detail::begin_collective(
      comm, {model::Operation::alltoall, "alltoallv", 0, dtype, 0, false, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (c.algorithm == Algorithm::Bruck)
          return {ErrorCode::unsupported, "alltoallv: bruck serves equal blocks only (alltoall)"};
        if (send != nullptr && send == recv)  // null buffers: the null check below
          return {ErrorCode::unsupported, "alltoallv: in place is not supported"};
        COMMPRESS_RETURN_IF_ERROR(check_layout("send", send_counts, send_displs, c.size, dtype, sent));
        COMMPRESS_RETURN_IF_ERROR(check_layout("receive", recv_counts, recv_displs, c.size, dtype, got));
        for (int r = 0; r < c.size; ++r) {
          if (c.algorithm == Algorithm::Mpi &&
              std::max({sent.count[size_t(r)], sent.displ[size_t(r)], got.count[size_t(r)],
                        got.displ[size_t(r)]}) > size_t(INT32_MAX))
            return {ErrorCode::unsupported, "alltoallv with Algorithm::Mpi takes int counts"};
          if ((sent.count[size_t(r)] && !send) || (got.count[size_t(r)] && !recv))
            return {ErrorCode::invalid_argument, "alltoallv: null buffer with a non-zero count"};
          COMMPRESS_RETURN_IF_ERROR(detail::check_message_size(
              c.wire.block_capacity(std::max(sent.count[size_t(r)], got.count[size_t(r)])), "alltoallv"));
        }
        return {};
      });
  if (!c.ok()) return c.status();
  // The count check needs the layouts even where begin_collective's checks stopped early.
  layout = check_layout("send", send_counts, send_displs, c->size, dtype, sent);
  if (layout.ok()) layout = check_layout("receive", recv_counts, recv_displs, c->size, dtype, got);
  COMMPRESS_RETURN_IF_ERROR(detail::agree_outcome(c->comm, check_pairs(*c, sent, got, layout)));
  const size_t elem = c->wire.elem_size();
  if (c->wire.needs_range()) {  // the range of every block this rank sends, packed
    Buffer packed;
    for (int r = 0; r < c->size; ++r) {
      const auto* b = static_cast<const std::byte*>(send) + sent.displ[size_t(r)] * elem;
      packed.insert(packed.end(), b, b + sent.count[size_t(r)] * elem);
    }
    // (known only after the agreement checked the layouts: an allreduce of its own)
    COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, {}, packed.data(), packed.size() / elem));
  }
  detail::Traffic traffic;
  Status local;
  if (c->algorithm == Algorithm::Mpi) {
    std::vector<int> sc(size_t(c->size)), sd(sc.size()), rc(sc.size()), rd(sc.size());
    for (size_t r = 0; r < sc.size(); ++r) {  // all within int (checked before agreeing)
      sc[r] = int(sent.count[r]), sd[r] = int(sent.displ[r]);
      rc[r] = int(got.count[r]), rd[r] = int(got.displ[r]);
    }
    MPI_Datatype t = detail::mpi_datatype(c->wire.dtype());
    COMMPRESS_MPI(MPI_Alltoallv(send, sc.data(), sd.data(), t, recv, rc.data(), rd.data(), t, c->comm));
    const uint64_t bytes = c->wire.raw_bytes(others(sent, c->rank));
    traffic.add(bytes, bytes);
  } else {
    local = compressed(*c, static_cast<const std::byte*>(send), sent,
                       static_cast<std::byte*>(recv), got, traffic);
  }
  return detail::end_collective(*c, local, traffic);
}

}  // namespace commpress::comm
