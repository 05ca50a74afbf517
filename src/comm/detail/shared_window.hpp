// SharedWindow: allreduce, allgather and bcast, uncompressed, through one shared-memory
// segment when every rank of the communicator runs on one node. Each rank copies its input
// into its slot; once all have, each rank reduces its own 1/p of the vector from all slots
// into the segment's result area (allreduce), and after a barrier every rank copies the
// result out (allgather: the slots are the result; bcast: the root's copy is). Every element
// thus moves through memory a fixed number of times, where MPI's shared-memory transport
// passes each of p-1 ring steps through its own buffers and synchronizes at each.
// The reduction runs in rank order for every element, so all ranks hold the same result,
// bit for bit, as a sequential reduction over ranks 0..p-1 would give.
//
// allreduce: where the segment is already large enough, the range pass writes its copy of the
// input into the rank's slot before the call's argument agreement, and when every rank says
// so in the agreement, its round trip is the barrier that "once all have" needs.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Where this rank's allreduce input of `bytes` goes in comm's segment, if the segment is
// mapped and large enough already; else null. Local. Safe before the agreement: no rank
// reads input slots after the previous call's barrier, and the result area, which ranks do
// read after it, is written only once the next call's inputs are all in.
std::byte* shared_window_input_slot(MPI_Comm comm, size_t bytes);

// Collective over comm (one node, arguments agreed). in may equal out, or be the input slot
// (then nothing is copied in). inputs_in_slots: every rank's input is in its slot already
// and the ranks have synchronized since (their agreement).
Status shared_window_allreduce(MPI_Comm comm, Op op, Dtype dtype, const std::byte* in,
                               std::byte* out, size_t n, bool inputs_in_slots);

// Collective over comm (one node, arguments agreed): `own` (n elements of elem_size bytes)
// lands at rank * n in out on every rank. own may lie inside out.
Status shared_window_allgather(MPI_Comm comm, size_t elem_size, const std::byte* own,
                               std::byte* out, size_t n);

// Collective over comm (one node, arguments agreed): the root's `bytes` of buf land in every
// rank's buf.
Status shared_window_bcast(MPI_Comm comm, int root, std::byte* buf, size_t bytes);

}  // namespace commpress::comm::detail
