// Compressed communication over MPI: point-to-point and collectives that move (and reduce)
// compressed frames, with MPI's verbs and argument order plus one Options object.
//
// Error bounds are promises about the RESULT: for allreduce with Options::bound =
// ErrorBound::absolute(1e-3), every element of recv differs from the exact reduction of the
// inputs by at most Report::guaranteed_abs_bound <= 1e-3 (plus the final rounding to the
// dtype, included in the reported value). Every rank validates the arguments the same way
// and all ranks return the same error together; none is left hanging.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "commpress/algorithm.hpp"
#include "commpress/codec.hpp"
#include "commpress/status.hpp"

namespace commpress::comm {

using codec::Dtype;
using codec::ErrorBound;

enum class Op : uint8_t { sum = 0, min = 1, max = 2, prod = 3 };

// The collective algorithms (commpress/algorithm.hpp: values, names, what each serves).
using commpress::Algorithm;
using commpress::algorithm_name;
Result<Algorithm> parse_algorithm(std::string_view name);  // "auto", "mpi", "ring", ...
const char* op_name(Op op);

struct Options {
  // Registry name; "" or "none": uncompressed; "auto": raw when lossless or not float (default
  // Options are exact), else "szp", or with Algorithm::Auto "szp-eh" where the model predicts
  // it faster (docs/szp-modes.md; Report::codec). Homomorphic algorithms need "szp".
  std::string codec = "auto";
  ErrorBound bound = ErrorBound::lossless();  // on the result; lossless codecs ignore it
  Algorithm algorithm = Algorithm::Auto;
  size_t chunk_bytes = 0;  // pipelining granularity of uncompressed data; 0 = Auto chooses
                           // it (a forced algorithm then uses 1 MiB)
  int pretend_ranks_per_node = 0;  // Hierarchical on one machine: group ranks; 0 = real nodes
};

struct Report {
  Algorithm algorithm = Algorithm::Auto;  // the one that actually ran
  std::string codec;                      // "none" when nothing was compressed
  uint64_t raw_bytes = 0;                 // uncompressed bytes this rank's sends represent
  uint64_t bytes_sent = 0;                // bytes this rank actually sent
  double ratio() const { return bytes_sent ? double(raw_bytes) / double(bytes_sent) : 1.0; }
  double guaranteed_abs_bound = 0;        // on every element of the result (0 = exact)
  double predicted_seconds = 0;           // the model's estimate (0 when not modelled)
  size_t chunk_bytes = 0;  // pipelining chunk it ran with (uncompressed bytes); 0 = MPI's own
};

// Point-to-point. The receiver must use the same codec and count; a compressed message is a
// stream of self-describing chunk frames so compression and transfer overlap. With Auto the
// sender may send the chunks uncompressed when compressing would not pay (the Report's codec
// is then "none"); the receiver follows what the sender's header says.
Result<Report> send(const void* buf, size_t count, Dtype dtype, int dest, int tag, MPI_Comm comm,
                    const Options& opts = {});
Result<Report> recv(void* buf, size_t count, Dtype dtype, int source, int tag, MPI_Comm comm,
                    const Options& opts = {});

// A nonblocking point-to-point operation (move-only). wait() completes it and returns its
// report; test() makes progress without blocking and says whether wait() would return at
// once. Destroying (or assigning over) an unfinished request waits for it.
class Request {
 public:
  class State;  // the operation in flight (internal)

  Request();
  explicit Request(std::unique_ptr<State> state);
  ~Request();
  Request(Request&& other) noexcept;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  bool active() const { return state_ != nullptr; }  // false after wait() or when empty
  Result<Report> wait();
  bool test();

 private:
  std::unique_ptr<State> state_;
};

// isend compresses up front and posts every message; irecv matches the sender's header when
// progressed (test/wait), then posts all chunk receives and decodes them in wait(). The
// buffer must stay valid (and, for irecv, untouched) until wait() returns. A compressed
// message is several MPI messages on the caller's tag: keep at most one commpress receive
// pending per (source, tag, communicator), as MPI's in-order matching is what keeps a
// message's pieces together.
Request isend(const void* buf, size_t count, Dtype dtype, int dest, int tag, MPI_Comm comm,
              const Options& opts = {});
Request irecv(void* buf, size_t count, Dtype dtype, int source, int tag, MPI_Comm comm,
              const Options& opts = {});

// Collectives. recv/send may alias where MPI allows MPI_IN_PLACE: pass the same pointer.
Result<Report> bcast(void* buf, size_t count, Dtype dtype, int root, MPI_Comm comm,
                     const Options& opts = {});
Result<Report> allgather(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                         MPI_Comm comm, const Options& opts = {});
Result<Report> scatter(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                       MPI_Comm comm, const Options& opts = {});
Result<Report> gather(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                      MPI_Comm comm, const Options& opts = {});
Result<Report> reduce_scatter_block(const void* send, void* recv, size_t count_per_rank,
                                    Dtype dtype, Op op, MPI_Comm comm, const Options& opts = {});
Result<Report> allreduce(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                         MPI_Comm comm, const Options& opts = {});
Result<Report> reduce(const void* send, void* recv, size_t count, Dtype dtype, Op op, int root,
                      MPI_Comm comm, const Options& opts = {});
// Every rank sends block d of send (count_per_rank elements) to rank d, which finds it at
// block `rank` of recv. Each block is compressed once and decoded once: every element
// delivered is within Report::guaranteed_abs_bound of the sender's. Algorithms: Mpi,
// Pairwise, Bruck (Auto: the model's choice).
Result<Report> alltoall(const void* send, void* recv, size_t count_per_rank, Dtype dtype,
                        MPI_Comm comm, const Options& opts = {});
// Unequal blocks, with MPI_Alltoallv's counts and displacements (in elements, one per rank).
// send_counts[d] on this rank must equal recv_counts[this rank] on rank d (checked: a mismatch
// fails every rank). Algorithms: Mpi, Pairwise (Auto: Pairwise when the options compress).
Result<Report> alltoallv(const void* send, std::span<const size_t> send_counts,
                         std::span<const size_t> send_displs, void* recv,
                         std::span<const size_t> recv_counts, std::span<const size_t> recv_displs,
                         Dtype dtype, MPI_Comm comm, const Options& opts = {});

}  // namespace commpress::comm
