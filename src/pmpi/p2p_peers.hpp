// Which ranks decode compressed point-to-point messages, so that a sender compresses only
// what its receiver is known to decode. Announced once at MPI_Init, with the policy
// agreement (every rank of MPI_COMM_WORLD runs this library, or the job stops there): a rank
// decodes when it started MPI through the C MPI_Init / MPI_Init_thread (Open MPI's Fortran
// receives call PMPI_* directly and never see these wrappers) with MPI_THREAD_MULTIPLE (its
// MPI_Irecv completes through a progress thread). Processes outside this job's
// MPI_COMM_WORLD (MPI_Comm_spawn, MPI_Comm_connect) never joined: nothing is compressed
// to them, nor on any communicator that holds one.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace commpress::pmpi {

// Collective over MPI_COMM_WORLD, after the policy agreement.
void start_p2p_peers(bool c_program);

// This job's key (rank 0's random value), written into every packed message.
uint64_t p2p_key();
bool this_rank_decodes();
// Whether rank `peer` of comm is a process of this job that decodes (false for
// MPI_PROC_NULL, intercommunicators, and ranks outside MPI_COMM_WORLD).
bool peer_decodes(MPI_Comm comm, int peer);

}  // namespace commpress::pmpi
