#include "comm/selection/choose_reduce.hpp"
#include "comm/probe/probed_profile.hpp"
#include "comm/select.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/transport/wire.hpp"

#include <atomic>
#include <cstdint>

namespace commpress::comm::detail {

namespace {

std::atomic<size_t> g_break_even{kDefaultBreakEvenBytes};
std::atomic<size_t> g_forced_break_even{SIZE_MAX};

}  // namespace

// Not when there is nothing to compress with, a dtype the codec lacks or a lossy prod (Auto
// runs MPI's own reduction); yes for an unknown codec or a lossy codec without a bound, so
// that the argument check reports them.
bool reduction_compressible(const Options& opts, Dtype dtype, Op op) {
  std::string name = codec_choice(opts, dtype);
  if (name == "none") return false;
  const codec::Codec* c = codec::find_codec(name);
  if (!c) return true;
  return c->supports(dtype) && !(c->lossy() && op == Op::prod);
}

namespace {

int size_of(MPI_Comm comm) {
  int p = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);  // a null comm is refused later
  return p;
}

Choice choose(model::Operation mop, const Options& opts, const void* send, size_t send_count,
              size_t count, Dtype dtype, Op op, MPI_Comm comm) {
  // Auto samples the input: not where the count describes no buffer (the agreement refuses it).
  if (!count_fits(send_count, dtype)) send = nullptr;
  SelectCall call{
      mop, count, dtype, op, send, send ? send_count : 0, reduction_compressible(opts, dtype, op)};
  probe::use_probed_profile(comm, probe::probe_call(opts, call.data, call.data_count, dtype));
  Choice c = choose_collective(call, opts, size_of(comm));
  if (!c.pending) settle_break_even(c);
  return c;
}

}  // namespace

void settle_break_even(const Choice& c) {
  set_compression_break_even_bytes(c.break_even_bytes ? c.break_even_bytes : kDefaultBreakEvenBytes);
}

size_t break_even_of(const Choice& c) {
  const size_t forced = g_forced_break_even.load();
  if (forced != SIZE_MAX) return forced;
  return c.break_even_bytes ? c.break_even_bytes : kDefaultBreakEvenBytes;
}

size_t forced_compression_break_even_bytes() {
  return g_forced_break_even.load();
}

size_t compression_break_even_bytes() {
  size_t forced = g_forced_break_even.load();
  return forced != SIZE_MAX ? forced : g_break_even.load();
}
void set_compression_break_even_bytes(size_t bytes) { g_break_even.store(bytes); }
void force_compression_break_even_bytes_for_testing(size_t bytes) {
  g_forced_break_even.store(bytes);
}

Choice choose_allreduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                        MPI_Comm comm) {
  return choose(model::Operation::allreduce, opts, send, count, count, dtype, op, comm);
}

Choice choose_reduce_scatter(const Options& opts, const void* send, size_t count_per_rank,
                             Dtype dtype, Op op, MPI_Comm comm) {
  return choose(model::Operation::reduce_scatter, opts, send,
                saturating_blocks(count_per_rank, size_t(size_of(comm))), count_per_rank, dtype,
                op, comm);
}

Choice choose_reduce(const Options& opts, const void* send, size_t count, Dtype dtype, Op op, int,
                     MPI_Comm comm) {
  return choose(model::Operation::reduce, opts, send, count, count, dtype, op, comm);
}

}  // namespace commpress::comm::detail
