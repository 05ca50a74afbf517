// Moves Wire-encoded data (comm/transport/wire.hpp) between ranks: pipelined chunk streams,
// forwarding relays, and exchanges of frames whose size the receiver only bounds, so each
// algorithm is written once for compressed and uncompressed transfer.
//
// Failure discipline: a local failure (a chunk that will not encode, a frame that will not
// decode) never changes the message pattern: an empty message stands in for a frame that
// could not be produced, every expected message is still received, and the first error is
// returned at the end. Callers fold it into agree_outcome so all ranks fail together. Only
// MPI errors return at once (the pattern cannot be kept then).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/transport/buffer.hpp"
#include "comm/transport/wire.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Bytes this rank put on the wire and the uncompressed bytes they stand for (Report fields).
struct Traffic {
  uint64_t raw_bytes = 0;
  uint64_t bytes_sent = 0;

  void add(uint64_t raw, uint64_t sent) {
    raw_bytes += raw;
    bytes_sent += sent;
  }
  void add_to(Report& r) const {
    r.raw_bytes += raw_bytes;
    r.bytes_sent += bytes_sent;
  }
};

// (b) Pipelined send of an n-array to every rank in dests (the same frames to each): chunk
// k+1 is encoded while chunk k is in flight (double-buffered MPI_Isend, MPI_Test between
// chunks). One message per chunk, all with tag on comm.
Status send_stream(const Wire& wire, const void* data, size_t n, std::span<const int> dests,
                   int tag, MPI_Comm comm, Traffic& traffic);

// (c) Receives such a stream from src with preposted MPI_Irecv (capacity frame_capacity of
// the chunk), forwards each frame unchanged to every rank in forward as soon as it arrives
// (no recompression), and decodes chunk k while chunk k+1 arrives. out may be null only when
// decoding is not wanted (pure relay).
Status recv_stream(const Wire& wire, void* out, size_t n, int src, std::span<const int> forward,
                   int tag, MPI_Comm comm, Traffic& traffic);

// (d) Sends `out` (standing for raw_out uncompressed bytes) to dest and receives one message
// of at most capacity bytes from src into `in`, resized to what arrived. Either peer may be
// MPI_PROC_NULL (then `in` is left empty).
Status exchange(std::span<const std::byte> out, uint64_t raw_out, int dest, Buffer& in,
                size_t capacity, int src, int tag, MPI_Comm comm, Traffic& traffic);

// The nonblocking form of exchange: start posts both sides, finish waits and trims `in`.
// The buffers must stay untouched until finish; a started exchange must be finished.
class PendingExchange {
 public:
  Status start(std::span<const std::byte> out, uint64_t raw_out, int dest, Buffer& in,
               size_t capacity, int src, int tag, MPI_Comm comm, Traffic& traffic);
  // Lets the exchange move while the caller computes between calls: without an asynchronous
  // progress thread a message above the eager size moves only inside MPI calls. After an MPI
  // error it does nothing more; finish() returns that error, so callers may ignore this one.
  Status progress();
  Status finish();

 private:
  Status test_both();  // MPI_Test on both requests (the receive's length when it completes)

  MPI_Request reqs_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  Buffer* in_ = nullptr;
  int received_ = -1;  // the receive's length when progress() completed it
  Status progress_error_;
};

// MPI_Isend of one message through the transport (counted in traffic; subject to the
// testing corruption below). Every commpress send goes through here.
Status isend_message(std::span<const std::byte> msg, uint64_t raw, int dest, int tag,
                     MPI_Comm comm, MPI_Request* req, Traffic& traffic);

// Waits for / tests the requests and clears the list once all are complete.
Status wait_all(std::vector<MPI_Request>& reqs);
Status test_all(std::vector<MPI_Request>& reqs);

// A message capacity the int-count MPI interface can carry, else invalid_argument naming
// what (operations check this before agreeing, so every rank refuses together).
Status check_message_size(size_t bytes, const char* what);

// Keeps the first local failure (prefixed with where) while the message pattern goes on.
void keep_first(Status& first, const Status& st, const std::string& where);

// Testing only: the nth exchange (exchange or PendingExchange::finish) this rank completes from
// now on (1: the next; 0: none) reports an MPI error after its messages have moved, as a failed
// receive would, so a caller's handling of a failure part-way through its transfers can be
// exercised on one rank.
void fail_exchange_for_testing(int nth);

// Testing only: after `skip` more non-empty messages, the next one this rank sends through
// the functions above arrives with one byte flipped in its middle (a damaged link; the
// sender's data is intact). on = false disarms a corruption no send consumed.
void corrupt_next_send_for_testing(bool on = true, int skip = 0);

}  // namespace commpress::comm::detail
