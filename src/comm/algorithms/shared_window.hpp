// SharedWindow: allreduce, allgather and bcast, uncompressed, through one shared-memory
// segment when every rank of the communicator runs on one node. Each rank copies its input
// into its slot and marks it ready (SharedSegment::mark); once all are, each rank reduces its
// own 1/p of the vector from all slots into the segment's result area and marks that, and
// every rank copies each share out as soon as its owner has marked it (allgather: the slots
// are the result; bcast: the root's copy is). Every element thus moves through memory a
// fixed number of times, and no rank waits for more than the data it needs, where MPI's
// shared-memory transport passes each of p-1 ring steps through its own buffers.
// The reduction runs in rank order for every element, so all ranks hold the same result,
// bit for bit, as a sequential reduction over ranks 0..p-1 would give.
//
// The next call's argument agreement keeps any rank from writing a slot again before every
// rank has read it. allreduce: where the segment is already large enough, the range pass
// writes its copy of the input into the rank's slot before the agreement, and when every
// rank says so in the agreement, its round trip stands in for the input marks.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Where this rank's allreduce input of `bytes` goes in comm's segment, if the segment is
// mapped and large enough already; else null. Local. Safe before the agreement: a rank
// leaves a call only once every share of the result is marked, after which no rank reads
// input slots, and the result area, which ranks may still be reading, is written only
// after the next call's agreement.
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
