// A matched probe and the receive of what it found, as point-to-point receives use them (the
// header's size must be known before it is received, and no other receive may take it in
// between). SimGrid's SMPI 3.32 lacks MPI_Mprobe, MPI_Improbe and MPI_Mrecv. Its ranks run one
// thread each (the library starts none there), and between a probe and the receive that follows
// it on that thread nothing else can receive, so the SMPI build probes with MPI_Probe or
// MPI_Iprobe and receives from the probed source and tag: MPI's non-overtaking order makes that
// the probed message. The real build keeps the matched forms, which stay correct while other
// threads receive on the same communicator.
#pragma once

#include <mpi.h>

namespace commpress::comm::detail {

struct ProbedMessage {
#ifdef COMMPRESS_SMPI
  int source = MPI_PROC_NULL, tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
#else
  MPI_Message handle = MPI_MESSAGE_NULL;
#endif
};

inline int matched_iprobe(int source, int tag, MPI_Comm comm, int* found, ProbedMessage* m,
                          MPI_Status* st) {
#ifdef COMMPRESS_SMPI
  const int rc = MPI_Iprobe(source, tag, comm, found, st);
  if (rc == MPI_SUCCESS && *found) *m = {st->MPI_SOURCE, st->MPI_TAG, comm};
  return rc;
#else
  return MPI_Improbe(source, tag, comm, found, &m->handle, st);
#endif
}

inline int matched_probe(int source, int tag, MPI_Comm comm, ProbedMessage* m, MPI_Status* st) {
#ifdef COMMPRESS_SMPI
  const int rc = MPI_Probe(source, tag, comm, st);
  if (rc == MPI_SUCCESS) *m = {st->MPI_SOURCE, st->MPI_TAG, comm};
  return rc;
#else
  return MPI_Mprobe(source, tag, comm, &m->handle, st);
#endif
}

// Receives the probed message as `len` bytes.
inline int matched_recv(void* buf, int len, ProbedMessage* m) {
#ifdef COMMPRESS_SMPI
  return MPI_Recv(buf, len, MPI_BYTE, m->source, m->tag, m->comm, MPI_STATUS_IGNORE);
#else
  return MPI_Mrecv(buf, len, MPI_BYTE, &m->handle, MPI_STATUS_IGNORE);
#endif
}

}  // namespace commpress::comm::detail
