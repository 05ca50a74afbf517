// MPI_Probe and MPI_Iprobe on a communicator whose policy names p2p: a message whose length
// may be a packed one's is received into the stash (p2p_stash.hpp), so the status reports
// the plain array's count; any other message stays in MPI, its status MPI's own.
#include <mpi.h>

#include <memory>

#include "commpress/packed_message.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/intercept.hpp"
#include "pmpi/p2p_peers.hpp"
#include "pmpi/p2p_receive.hpp"
#include "pmpi/p2p_stash.hpp"

namespace commpress::pmpi {

namespace {

bool probes_packed(int source, MPI_Comm comm) {
  return source != MPI_PROC_NULL && this_rank_decodes() && active_policy(comm, kP2p) != nullptr;
}

void report(const Stashed& s, MPI_Status* status) {
  set_status(status, s.source, s.tag, s.plain_bytes, MPI_SUCCESS);
}

// After PMPI found a message (st): keep it in the stash when it may be a packed one.
int keep_if_packed(MPI_Comm comm, MPI_Status st, MPI_Status* status) {
  MPI_Count length = 0;
  PMPI_Get_elements_x(&st, MPI_BYTE, &length);
  if (!comm::may_be_packed_message(size_t(length))) {
    if (status != MPI_STATUS_IGNORE) *status = st;
    return MPI_SUCCESS;
  }
  MPI_Message handle;
  int rc = PMPI_Mprobe(st.MPI_SOURCE, st.MPI_TAG, comm, &handle, &st);  // the same message
  if (rc != MPI_SUCCESS) return rc;
  PMPI_Get_elements_x(&st, MPI_BYTE, &length);
  Stashed s;
  s.comm = comm;
  s.source = st.MPI_SOURCE;
  s.tag = st.MPI_TAG;
  s.size = size_t(length);
  s.data.reset(new std::byte[s.size]);
  rc = PMPI_Mrecv(s.data.get(), int(length), MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  auto info = comm::packed_message_info(s.message(), p2p_key());
  s.plain_bytes = info.ok() ? info->count * codec::dtype_size(info->dtype) : s.size;
  report(s, status);
  stash(std::move(s));
  return MPI_SUCCESS;
}

}  // namespace

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

extern "C" {

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (bypassing() || !probes_packed(source, comm)) return PMPI_Probe(source, tag, comm, status);
  Bypass inside;
  if (auto s = find_stashed(comm, source, tag)) {
    report(*s, status);
    return MPI_SUCCESS;
  }
  MPI_Status st;
  const int rc = PMPI_Probe(source, tag, comm, &st);
  return rc != MPI_SUCCESS ? rc : keep_if_packed(comm, st, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  if (bypassing() || !probes_packed(source, comm))
    return PMPI_Iprobe(source, tag, comm, flag, status);
  Bypass inside;
  if (auto s = find_stashed(comm, source, tag)) {
    *flag = 1;
    report(*s, status);
    return MPI_SUCCESS;
  }
  MPI_Status st;
  const int rc = PMPI_Iprobe(source, tag, comm, flag, &st);
  if (rc != MPI_SUCCESS || !*flag) return rc;
  return keep_if_packed(comm, st, status);
}

}  // extern "C"
