#include "comm/selection/choose.hpp"

#include "comm/probe/probed_profile.hpp"
#include "comm/select.hpp"
#include "comm/session/count_limit.hpp"
#include "commpress/codec.hpp"

namespace commpress::comm::detail {

namespace {

int rank_of(MPI_Comm comm) {
  int r = -1;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &r);  // a null comm is refused later
  return r;
}

int size_of(MPI_Comm comm) {
  int p = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);
  return p;
}

// This rank's block of an in-place buffer holding one block per rank.
const void* own_block(const void* buf, size_t count, Dtype dtype, MPI_Comm comm) {
  const int r = rank_of(comm);
  if (!buf || r < 0 || !count_fits(count, dtype, size_t(size_of(comm)))) return nullptr;
  return static_cast<const std::byte*>(buf) + size_t(r) * count * codec::dtype_size(dtype);
}

Choice collective(model::Operation op, const Options& opts, const void* data, size_t data_count,
                  size_t count, Dtype dtype, MPI_Comm comm) {
  SelectCall call{op, count, dtype};
  // Auto samples the data: not where the count describes no buffer (the agreement refuses it).
  const bool readable = data && count_fits(data_count, dtype);
  call.data = readable ? data : nullptr;
  call.data_count = readable ? data_count : 0;
  probe::use_probed_profile(comm, probe::probe_call(opts, call.data, call.data_count, dtype));
  return choose_collective(call, opts, size_of(comm));
}

}  // namespace

void Choice::settle(const Selection& s) {
  algorithm = s.algorithm;
  predicted_seconds = s.predicted_seconds;
  break_even_bytes = s.break_even_bytes;
  if (s.chunk_bytes && options.chunk_bytes == 0) options.chunk_bytes = s.chunk_bytes;
  if (!s.codec.empty()) options.codec = s.codec;
  modes = s.modes;
  sample = s.sample;
  pending.reset();
}

std::vector<double> Choice::mins() const {
  if (pending) return pending->mins();
  return selection_mins(sample, local_oversubscription());
}

Choice choose_collective(const SelectCall& call, const Options& opts, int ranks) {
  Choice c;
  c.options = opts;
  if (opts.algorithm != Algorithm::Auto) {
    c.settle(select_forced(call, opts, ranks));
  } else if (!call.compressible && !model::offers_shared_window(call.op)) {
    // Nothing to compress with, or no compressed algorithm could honour the request (all
    // of which the ranks agree on): uncompressed, as the model says, without sampling.
    // (Where the uncompressed way depends on the nodes, AutoSelection decides it after the
    // agreement, likewise without sampling.)
    c.settle(select_uncompressed(call, opts, ranks));
  } else {
    c.pending = std::make_shared<const AutoSelection>(call, opts, ranks);
  }
  return c;
}

Choice choose_bcast(const Options& opts, const void* buf, size_t count, Dtype dtype, int root,
                    MPI_Comm comm) {
  const bool is_root = rank_of(comm) == root;  // only the root's data travels
  return collective(model::Operation::bcast, opts, is_root ? buf : nullptr, count, count, dtype,
                    comm);
}

Choice choose_allgather(const Options& opts, const void* send, const void* recv, size_t count,
                        Dtype dtype, MPI_Comm comm) {
  const void* mine = send == recv ? own_block(recv, count, dtype, comm) : send;
  return collective(model::Operation::allgather, opts, mine, count, count, dtype, comm);
}

Choice choose_scatter(const Options& opts, const void* send, size_t count, Dtype dtype, int root,
                      MPI_Comm comm) {
  const bool is_root = rank_of(comm) == root;  // the root's p blocks travel
  return collective(model::Operation::scatter, opts, is_root ? send : nullptr,
                    saturating_blocks(count, size_t(size_of(comm))), count, dtype, comm);
}

Choice choose_gather(const Options& opts, const void* send, const void* recv, size_t count,
                     Dtype dtype, int root, MPI_Comm comm) {
  const bool in_place = rank_of(comm) == root && send == recv;
  const void* mine = in_place ? own_block(recv, count, dtype, comm) : send;
  return collective(model::Operation::gather, opts, mine, count, count, dtype, comm);
}

Result<Report> with_prediction(Result<Report> r, const Choice& choice) {
  if (r.ok()) r->predicted_seconds = choice.predicted_seconds;
  return r;
}

}  // namespace commpress::comm::detail
