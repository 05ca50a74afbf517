// Messages a probe took out of MPI. MPI_Probe / MPI_Iprobe must report the plain array's
// count, which only a packed message's header knows, and MPI has no peek: so a probe that
// finds a message whose length may be a packed one's receives it (matched probe, exactly the
// message the probe found) and keeps it here, keyed by communicator, source and tag, and the
// receives of this library (MPI_Recv, MPI_Irecv, MPI_Sendrecv, MPI_Sendrecv_replace) take a
// matching kept message before asking MPI.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

namespace commpress::pmpi {

struct Stashed {
  MPI_Comm comm = MPI_COMM_NULL;
  int source = 0, tag = 0;
  std::shared_ptr<std::byte[]> data;
  size_t size = 0;         // the message's length
  size_t plain_bytes = 0;  // what a receive's status reports
  std::span<const std::byte> message() const { return {data.get(), size}; }
};

// Receives the message PMPI matched (handle, with its status st) into s.
int receive_matched(MPI_Comm comm, MPI_Message handle, const MPI_Status& st, Stashed& s);

void stash(Stashed s);
bool stash_holds_any();
// The oldest kept message that a receive (source, tag on comm) matches, taken out / looked at.
std::optional<Stashed> take_stashed(MPI_Comm comm, int source, int tag);
std::optional<Stashed> find_stashed(MPI_Comm comm, int source, int tag);

}  // namespace commpress::pmpi
