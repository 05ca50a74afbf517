#include "comm/detail/choose_reduce.hpp"
#include "comm/detail/wire.hpp"

#include <atomic>
#include <cstdint>

namespace commpress::comm::detail {

namespace {

std::atomic<size_t> g_break_even{size_t{64} << 10};
std::atomic<size_t> g_forced_break_even{SIZE_MAX};

// Until the cost model decides: MPI's own reduction when there is nothing to compress with,
// the vector is small, or no compressed algorithm could honour the request (a lossy prod);
// the homomorphic ring for szp sums; the DOC ring otherwise.
Algorithm simple_choice(const Options& opts, size_t bytes, Dtype dtype, Op op) {
  if (opts.algorithm != Algorithm::Auto) return opts.algorithm;
  std::string name = codec_choice(opts, dtype);
  if (name == "none") return Algorithm::Mpi;
  const codec::Codec* c = codec::find_codec(name);
  if (!c) return Algorithm::DocRing;  // unknown: let the argument check name it
  if (!c->supports(dtype) || (c->lossy() && op == Op::prod)) return Algorithm::Mpi;
  if (bytes < compression_break_even_bytes()) return Algorithm::Mpi;
  if (op == Op::sum && c->id() == codec::CodecId::szp) return Algorithm::HomomorphicRing;
  return Algorithm::DocRing;
}

}  // namespace

size_t compression_break_even_bytes() {
  size_t forced = g_forced_break_even.load();
  return forced != SIZE_MAX ? forced : g_break_even.load();
}
void set_compression_break_even_bytes(size_t bytes) { g_break_even.store(bytes); }
void force_compression_break_even_bytes_for_testing(size_t bytes) {
  g_forced_break_even.store(bytes);
}

Algorithm choose_allreduce(const Options& opts, size_t count, Dtype dtype, Op op, MPI_Comm) {
  return simple_choice(opts, count * codec::dtype_size(dtype), dtype, op);
}

Algorithm choose_reduce_scatter(const Options& opts, size_t count_per_rank, Dtype dtype, Op op,
                                MPI_Comm comm) {
  int p = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);  // a null comm is refused later
  return simple_choice(opts, count_per_rank * size_t(p) * codec::dtype_size(dtype), dtype, op);
}

Algorithm choose_reduce(const Options& opts, size_t count, Dtype dtype, Op op, int, MPI_Comm) {
  return simple_choice(opts, count * codec::dtype_size(dtype), dtype, op);
}

}  // namespace commpress::comm::detail
