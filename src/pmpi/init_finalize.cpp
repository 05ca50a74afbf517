// MPI_Init / MPI_Init_thread agree on the environment's policy over MPI_COMM_WORLD before the
// program sends anything; a disagreement (or an invalid value) ends every rank with the same
// message. MPI_Finalize sums the ranks' counters for COMMPRESS_DEBUG(_JSON).
// With a policy in the environment, MPI is asked for MPI_THREAD_MULTIPLE (never less than
// the program asked for): the nonblocking collectives progress on threads of commpress's
// (nonblocking_calls.cpp). The program sees the level MPI provided, which MPI allows to
// exceed the one required. Not with COMMPRESS_PROGRESS=inline, where no thread of
// commpress's runs: MPI keeps the program's level, and the locks MPI_THREAD_MULTIPLE puts in
// every call (small calls' latency on shared memory) with it; point-to-point messages then
// travel plain (p2p_peers.hpp).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "commpress/nonblocking.hpp"
#include "commpress/packed_message.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/comm_policy.hpp"
#include "pmpi/debug_flag.hpp"
#include "pmpi/p2p_peers.hpp"
#include "pmpi/p2p_progress.hpp"
#include "pmpi/session.hpp"

namespace commpress::pmpi {

void start_session_or_exit(bool c_program) {
  if (policies_started()) return;
  Bypass inside;
  const commpress::Status st = start_policies();
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (st.ok()) {
    start_p2p_peers(c_program);
    const Policy& world = environment_policy_in_force();
    if (world.intercepts(kP2p)) {
      // A send decides by the profile in force and cannot measure one itself.
      commpress::comm::Options opts;
      opts.codec = world.codec;
      opts.bound = world.bound;
      commpress::comm::prepare_packed_messages(MPI_COMM_WORLD, opts);
    }
    if (rank == 0 && debug_enabled())
      std::fprintf(stderr, "commpress_mpi: policy on all %d ranks: %s%s\n", size,
                   environment_policy_in_force().text().c_str(),
                   environment_policy_in_force().active ? progress_note().c_str() : "");
    return;
  }
  std::fprintf(stderr, "commpress_mpi[%d/%d]: MPI_Init: %s\n", rank, size, st.message().c_str());
  // A rank missing from the agreement cannot be reached: stop the whole job.
  if (st.code() == commpress::ErrorCode::mpi) PMPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
  // Every rank got the same status from the same allgather: all of them stop here.
  PMPI_Finalize();
  std::exit(EXIT_FAILURE);
}

// The thread level to ask MPI for: MPI_THREAD_MULTIPLE where a policy may intercept and
// progress threads may run.
int level_for(int required) {
  const char* bound = std::getenv("COMMPRESS_BOUND");
  const bool policy = bound && *bound && std::string(bound) != "off";
  // With COMMPRESS_PROGRESS=inline no thread of commpress's runs: the program's level.
  return policy && !commpress::comm::progress_inline() && required < MPI_THREAD_MULTIPLE
             ? MPI_THREAD_MULTIPLE
             : required;
}

void finish_session() {
  stop_p2p_progress();  // the packed sends still in flight leave before MPI ends
  Bypass inside;
  if (policies_started()) finish_call_log(environment_policy_in_force().text());
}

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

extern "C" int MPI_Init(int* argc, char*** argv) {
  int rc;
  {
    Bypass inside;
    const int level = level_for(MPI_THREAD_SINGLE);
    int provided = 0;
    rc = level == MPI_THREAD_SINGLE ? PMPI_Init(argc, argv)
                                    : PMPI_Init_thread(argc, argv, level, &provided);
  }
  if (rc == MPI_SUCCESS) start_session_or_exit(true);
  return rc;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc;
  {
    Bypass inside;
    rc = PMPI_Init_thread(argc, argv, level_for(required), provided);
  }
  if (rc == MPI_SUCCESS) start_session_or_exit(true);
  return rc;
}

extern "C" int MPI_Finalize(void) {
  finish_session();
  Bypass inside;
  return PMPI_Finalize();
}
