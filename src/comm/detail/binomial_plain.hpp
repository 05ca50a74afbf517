// PlainBinomial: bcast down a binomial tree, uncompressed and unsegmented, run by commpress.
// Each rank receives the whole message from its parent, then sends it on to its children,
// largest subtree first. An MPI library's own bcast may cut a large message into segments
// to pipeline them down the tree; with more ranks than cores every segment costs the
// waiting ranks a wake-up, and Open MPI 4.1's took 1.3x this tree's time at 1-4 MiB with 4
// ranks on 2 cores. Auto runs it where the machine profile measured MPI's own slower.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "comm/detail/frame_transport.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// Collective over comm; buf holds n elements of dtype (the root's are sent, the others'
// overwritten).
Status plain_binomial_bcast(MPI_Comm comm, int rank, int size, int root, void* buf, size_t n,
                            Dtype dtype, Traffic& traffic);

}  // namespace commpress::comm::detail
