// The library's life within MPI's: started right after PMPI_Init (from the C or the Fortran
// MPI_Init / MPI_Init_thread), finished right before PMPI_Finalize.
#pragma once

namespace commpress::pmpi {

// Agrees on the environment's policy over MPI_COMM_WORLD; on a disagreement or an invalid
// value every rank prints the same message, finalizes MPI and exits with status 1. Then the
// ranks announce whether they decode point-to-point (p2p_peers.hpp): c_program is false
// when MPI was started from Fortran. Runs once.
void start_session_or_exit(bool c_program);
// The thread level to ask MPI for: MPI_THREAD_MULTIPLE where a policy is set (the progress
// threads need it), never less than `required`.
int level_for(int required);

// Collective over MPI_COMM_WORLD: the COMMPRESS_DEBUG(_JSON) summary.
void finish_session();

}  // namespace commpress::pmpi
