// SharedWindow: allreduce, allgather and bcast, uncompressed, through one shared-memory segment
// when every rank of the communicator runs on one node. Each rank copies its input into its
// slot; after one barrier each rank reduces its own 1/p of the vector from all slots into
// the segment's result area (allreduce), and after a second every rank copies the result out
// (allgather: the slots are the result; bcast: the root's copy is). Every element thus moves
// through memory a fixed number of times, with two barriers in all, where MPI's shared-memory
// transport passes each of p-1 ring steps through its own buffers and synchronizes at each. The
// reduction runs in rank order for every element, so all ranks hold the same result, bit for bit,
// as a sequential reduction over ranks 0..p-1 would give.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Where this rank's allreduce input of `bytes` goes in comm's segment, if the segment is
// mapped and large enough already; else null. Local. The reductions' range pass copies the
// input there before the argument agreement: no rank reads input slots after the second
// barrier of the call before, and the result area that they do read is written only after
// the first barrier of the next.
std::byte* shared_window_input_slot(MPI_Comm comm, size_t bytes);

// Collective over comm (one node, arguments agreed). in may equal out, or be the input slot
// (then nothing is copied in).
Status shared_window_allreduce(MPI_Comm comm, Op op, Dtype dtype, const std::byte* in,
                               std::byte* out, size_t n);

// Collective over comm (one node, arguments agreed): `own` (n elements of elem_size bytes)
// lands at rank * n in out on every rank. own may lie inside out.
Status shared_window_allgather(MPI_Comm comm, size_t elem_size, const std::byte* own,
                               std::byte* out, size_t n);

// Collective over comm (one node, arguments agreed): the root's `bytes` of buf land in every
// rank's buf.
Status shared_window_bcast(MPI_Comm comm, int root, std::byte* buf, size_t bytes);

}  // namespace commpress::comm::detail
