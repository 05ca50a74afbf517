// Moving encoded blocks between ranks. Encodings vary in size (compressed blocks especially),
// so every buffer is sized once for the largest encoding its operand can produce and the
// receiver learns the real size from the message itself (MPI_Get_count): no size message,
// no reallocation while blocks circulate.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::linalg::detail {

// An encoded block (raw packed or one codec frame): the first `size` bytes of `bytes`.
struct EncodedBlock {
  std::vector<std::byte> bytes;
  size_t size = 0;
  std::span<const std::byte> view() const { return {bytes.data(), size}; }
};

// Message tags of the block transfers (on the grid's private communicators).
enum ShiftTag : int {
  kTagSkewA = 0x4341,
  kTagSkewB = 0x4342,
  kTagShiftA = 0x4343,
  kTagShiftB = 0x4344,
};

// One send of `out` to dest with one receive into `in` (capacity in.bytes.size()) from src.
// Posted, then completed by wait(); `out` must stay untouched (it may be read) until then.
class BlockExchange {
 public:
  BlockExchange() = default;
  BlockExchange(const BlockExchange&) = delete;
  BlockExchange& operator=(const BlockExchange&) = delete;
  ~BlockExchange();  // waits for a posted exchange that was not completed

  Status post(MPI_Comm comm, int dest, int src, int tag, const EncodedBlock& out,
              EncodedBlock& in);
  // Lets MPI move the messages along while the caller computes (a library whose transfers
  // advance only inside MPI calls would otherwise do all the work in wait()).
  Status progress();
  Status wait();  // sets in.size
  bool posted() const { return in_ != nullptr; }

 private:
  MPI_Request requests_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status statuses_[2];
  bool complete_ = false;
  EncodedBlock* in_ = nullptr;
};

// The blocking form: MPI_Sendrecv of the same pair.
Status exchange_blocking(MPI_Comm comm, int dest, int src, int tag, const EncodedBlock& out,
                         EncodedBlock& in);

// Tests: the nth exchange this rank completes from now on (1: the next; 0: none) reports an
// MPI error after its messages have moved, as a failed receive would, so the callers' handling
// of a failure part-way through their transfers can be exercised on one rank.
void fail_exchange_for_testing(int nth);

// Broadcasts root's block over comm: its size, then its bytes (into capacity on the others).
Status bcast_block(MPI_Comm comm, int root, EncodedBlock& block);

// A message must fit MPI's int count; checked once from sizes every rank computes alike.
Status check_message_capacity(size_t bytes, const char* what);

}  // namespace commpress::linalg::detail
