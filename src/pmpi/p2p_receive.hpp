// The receiving half of compressed point-to-point: which receives may match a packed message
// (commpress/packed_message.hpp) and how a received message reaches the application's
// buffer, with the status it would have had for the plain array.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "commpress/comm.hpp"
#include "pmpi/policy.hpp"
#include "pmpi/request_status.hpp"

namespace commpress::pmpi {

// A receive that may match a packed message: float or double elements (MPI_FLOAT, ...), or a
// type a float array may land in (a derived type, MPI_BYTE, MPI_PACKED), on a communicator
// whose policy names p2p, large enough to hold a message the sender would have compressed,
// on a rank that announced it decodes.
struct Target {
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool floats = false;  // buf holds count elements of dtype, contiguously
  comm::Dtype dtype = comm::Dtype::f64;
  size_t capacity_bytes = 0;
  const Policy* policy = nullptr;
};
std::optional<Target> packed_target(void* buf, int count, MPI_Datatype type, int source,
                                    MPI_Comm comm);
// The same description for any receive (one that a kept message matches, p2p_stash.hpp).
Target target_of(void* buf, int count, MPI_Datatype type, MPI_Comm comm);

struct Delivered {
  size_t bytes = 0;  // what the status reports: the plain array's bytes
  comm::Dtype dtype = comm::Dtype::f64;  // a packed message's elements
  int error = MPI_SUCCESS;
  std::string why;                     // with an error
  std::optional<comm::Report> report;  // a packed message was decoded
};

// The message MPI delivered (its `length` bytes) into the target. in_buffer: the bytes sit
// in target.buf already (a float receive posted straight into it).
Delivered deliver(const Target& t, std::span<const std::byte> message, bool in_buffer);

// Debug line (and error message) for a delivered message.
void log_delivery(const char* mpi_name, const Target& t, int source, const Delivered& d,
                  double seconds);

}  // namespace commpress::pmpi
