// Point-to-point: MPI_Send / MPI_Isend compress a contiguous float or double array into ONE
// packed message (commpress/packed_message.hpp) on the caller's communicator and tag, when
// the policy names p2p, the array has at least min_bytes, and the receiving rank announced at
// MPI_Init that it decodes (p2p_peers.hpp). One message in the caller's channel keeps MPI's
// matching (MPI_ANY_SOURCE, MPI_ANY_TAG) and its non-overtaking order, compressed and plain
// messages mixed. MPI_Recv, MPI_Irecv, MPI_Sendrecv, MPI_Sendrecv_replace (and the probes,
// p2p_probes.cpp) recognise a packed message by its length and key and decode it, reporting
// the plain array's source, tag and count; any other message goes to the application's
// buffer as MPI delivers it.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "commpress/packed_message.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/intercept.hpp"
#include "pmpi/p2p_calls.hpp"
#include "pmpi/p2p_peers.hpp"
#include "pmpi/p2p_progress.hpp"
#include "pmpi/p2p_receive.hpp"
#include "pmpi/p2p_stash.hpp"

namespace commpress::pmpi {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- sends ----

// The packed message an intercepted send puts on the wire; empty: send the array as it is.
comm::PackedMessage pack_for(const char* mpi_name, const void* buf, int count,
                             MPI_Datatype type, int dest, MPI_Comm comm) {
  const Policy* p = active_policy(comm, kP2p);
  if (!p || count <= 0 || dest == MPI_PROC_NULL) return {};
  CallFacts f{mpi_name, kP2p, size_t(count), type, MPI_OP_NULL, bytes_of(size_t(count), type)};
  f.peer = dest;
  if (!large_enough(*p, f)) return {};
  const auto dtype = float_dtype(type);
  if (!dtype) {
    record_passed(f, type_refusal(type));
    return {};
  }
  if (!peer_decodes(comm, dest)) {
    record_passed(f, "the receiving rank does not decode point-to-point (docs/pmpi.md)");
    return {};
  }
  if (f.bytes > size_t(INT32_MAX)) {
    record_passed(f, "over 2 GiB");
    return {};
  }
  Bypass inside;
  comm::Options opts;
  opts.codec = p->codec;
  opts.bound = p->bound;
  const auto t0 = std::chrono::steady_clock::now();
  auto packed = comm::pack_message(buf, size_t(count), *dtype, p2p_key(), opts);
  if (!packed.ok()) {
    record_passed(f, "commpress refused: " + packed.status().to_string());
    return {};
  }
  record_intercepted(f, packed->report, *p, since(t0));
  return std::move(*packed);
}

// The application's request for an intercepted MPI_Isend: the array is in the packed
// message already, so the send is complete for the application at once (as a buffered
// standard-mode send is); the packed message's own send finishes on the progress thread.
class PackedSend final : public P2pWork {
 public:
  explicit PackedSend(comm::PackedMessage m) : message(std::move(m)) {}
  comm::PackedMessage message;
  bool is_receive() const override { return false; }
  void finished(const MPI_Status&) override {}
};

int query_send(void*, MPI_Status* status) {
  set_status(status, MPI_UNDEFINED, MPI_UNDEFINED, 0, MPI_SUCCESS);
  return MPI_SUCCESS;
}
int free_nothing(void*) { return MPI_SUCCESS; }
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

int post_packed_isend(comm::PackedMessage m, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  Bypass inside;
  auto w = std::make_unique<PackedSend>(std::move(m));
  const auto bytes = w->message.bytes();
  int rc = PMPI_Isend(bytes.data(), int(bytes.size()), MPI_BYTE, dest, tag, comm, &w->inner);
  if (rc != MPI_SUCCESS) return rc;
  progress_p2p(std::move(w));
  rc = PMPI_Grequest_start(query_send, free_nothing, cancel_nothing, nullptr, request);
  if (rc == MPI_SUCCESS) rc = PMPI_Grequest_complete(*request);
  return rc;
}

// ---- receives ----

// Shared between the progress thread (which fills it) and the generalized request (whose
// query reads it): freed by whichever lets go last.
struct RecvOutcome {
  MPI_Request request = MPI_REQUEST_NULL;
  int source = MPI_ANY_SOURCE, tag = MPI_ANY_TAG, error = MPI_SUCCESS;
  size_t bytes = 0;
  bool cancelled = false;
  std::atomic<bool> cancel_asked{false};
};
using SharedOutcome = std::shared_ptr<RecvOutcome>;

int query_recv(void* extra, MPI_Status* status) {
  const RecvOutcome& o = **static_cast<SharedOutcome*>(extra);
  set_status(status, o.source, o.tag, o.bytes, o.error);
  PMPI_Status_set_cancelled(status, o.cancelled ? 1 : 0);
  return o.error;
}
int free_recv(void* extra) {
  delete static_cast<SharedOutcome*>(extra);
  return MPI_SUCCESS;
}
int cancel_recv(void* extra, int complete) {
  if (!complete) (*static_cast<SharedOutcome*>(extra))->cancel_asked = true;
  return MPI_SUCCESS;
}

// An intercepted MPI_Irecv in flight: a float receive posted straight into the application's
// buffer, any other into a buffer of the receive's capacity.
class PackedRecv final : public P2pWork {
 public:
  PackedRecv(const Target& t, SharedOutcome o) : target(t), outcome(std::move(o)) {}
  ~PackedRecv() override {
    if (own_type) PMPI_Type_free(&target.type);
  }
  Target target;
  SharedOutcome outcome;
  std::unique_ptr<std::byte[]> scratch;
  bool own_type = false;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  bool is_receive() const override { return true; }
  bool wants_cancel() const override { return outcome->cancel_asked; }
  void finished(const MPI_Status& st) override {
    RecvOutcome& o = *outcome;
    int cancelled = 0;
    PMPI_Test_cancelled(&st, &cancelled);
    o.source = st.MPI_SOURCE;
    o.tag = st.MPI_TAG;
    if (cancelled) {
      o.cancelled = true;
    } else if (st.MPI_ERROR != MPI_SUCCESS) {
      o.error = st.MPI_ERROR;
    } else {
      MPI_Count length = 0;
      PMPI_Get_elements_x(&st, MPI_BYTE, &length);
      const auto* at = target.floats ? static_cast<const std::byte*>(target.buf) : scratch.get();
      const Delivered d = deliver(target, {at, size_t(length)}, target.floats);
      o.bytes = d.bytes;
      o.error = d.error;
      log_delivery("MPI_Irecv", target, o.source, d, since(started));
    }
    const MPI_Request r = o.request;  // the application may free the request once completed
    PMPI_Grequest_complete(r);
  }
};

}  // namespace

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
         const Pass& pass) {
  comm::PackedMessage m = pack_for("MPI_Send", buf, count, type, dest, comm);
  if (m.size == 0) return pass();
  Bypass inside;
  return PMPI_Send(m.data.get(), int(m.size), MPI_BYTE, dest, tag, comm);
}

int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* request, const Pass& pass) {
  comm::PackedMessage m = pack_for("MPI_Isend", buf, count, type, dest, comm);
  if (m.size == 0) return pass();
  return post_packed_isend(std::move(m), dest, tag, comm, request);
}

// A receive that a message kept by a probe matches (p2p_stash.hpp) gets it, whatever its
// type and size; nullopt: none matches.
std::optional<int> from_stash(const char* mpi_name, void* buf, int count, MPI_Datatype type,
                              int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (bypassing() || source == MPI_PROC_NULL || !stash_holds_any()) return std::nullopt;
  Bypass inside;
  std::optional<Stashed> kept = take_stashed(comm, source, tag);
  if (!kept) return std::nullopt;
  const Target t = target_of(buf, count, type, comm);
  const Delivered d = deliver(t, kept->message(), false);
  log_delivery(mpi_name, t, kept->source, d, 0);
  set_status(status, kept->source, kept->tag, d.bytes, MPI_SUCCESS);
  if (d.error != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, d.error);
  return d.error;
}

int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status, const Pass& pass) {
  if (auto rc = from_stash("MPI_Recv", buf, count, type, source, tag, comm, status)) return *rc;
  const auto t = packed_target(buf, count, type, source, comm);
  if (!t) return pass();
  Bypass inside;
  const auto t0 = std::chrono::steady_clock::now();
  MPI_Message handle;
  MPI_Status st;
  int rc = PMPI_Mprobe(source, tag, comm, &handle, &st);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Count length = 0;
  PMPI_Get_elements_x(&st, MPI_BYTE, &length);
  // Plain data (any length a float array can have) lands where MPI puts it, untouched.
  if (!comm::may_be_packed_message(size_t(length)))
    return PMPI_Mrecv(buf, count, type, &handle, status);
  std::unique_ptr<std::byte[]> message(new std::byte[size_t(length)]);
  rc = PMPI_Mrecv(message.get(), int(length), MPI_BYTE, &handle, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  const Delivered d = deliver(*t, {message.get(), size_t(length)}, false);
  log_delivery("MPI_Recv", *t, st.MPI_SOURCE, d, since(t0));
  set_status(status, st.MPI_SOURCE, st.MPI_TAG, d.bytes, MPI_SUCCESS);
  if (d.error != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, d.error);
  return d.error;
}

int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* request, const Pass& pass) {
  auto outcome = std::make_shared<RecvOutcome>();
  MPI_Status st;
  if (auto rc = from_stash("MPI_Irecv", buf, count, type, source, tag, comm, &st)) {
    // A probe took the message out of MPI already: delivered now, complete at once.
    Bypass inside;
    outcome->source = st.MPI_SOURCE;
    outcome->tag = st.MPI_TAG;
    outcome->error = *rc;
    MPI_Count length = 0;
    PMPI_Get_elements_x(&st, MPI_BYTE, &length);
    outcome->bytes = size_t(length);
    const int started = PMPI_Grequest_start(query_recv, free_recv, cancel_recv,
                                            new SharedOutcome(outcome), request);
    return started == MPI_SUCCESS ? PMPI_Grequest_complete(*request) : started;
  }
  const auto t = packed_target(buf, count, type, source, comm);
  if (!t) return pass();
  if (!t->floats && t->capacity_bytes > size_t(INT32_MAX)) return pass();
  Bypass inside;
  auto w = std::make_unique<PackedRecv>(*t, outcome);
  int combiner = MPI_COMBINER_NAMED, ni = 0, na = 0, nd = 0;
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED) {  // the application may free its type meanwhile
    PMPI_Type_dup(type, &w->target.type);
    w->own_type = true;
  }
  int rc;
  if (t->floats) {
    rc = PMPI_Irecv(buf, count, type, source, tag, comm, &w->inner);
  } else {
    w->scratch.reset(new std::byte[t->capacity_bytes]);
    rc = PMPI_Irecv(w->scratch.get(), int(t->capacity_bytes), MPI_BYTE, source, tag, comm,
                    &w->inner);
  }
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Grequest_start(query_recv, free_recv, cancel_recv, new SharedOutcome(outcome),
                           request);
  if (rc != MPI_SUCCESS) return rc;  // (the receive stays posted: MPI itself failed)
  outcome->request = *request;
  progress_p2p(std::move(w));
  return MPI_SUCCESS;
}

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send(buf, count, type, dest, tag, comm,
              [&] { return PMPI_Send(buf, count, type, dest, tag, comm); });
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, request,
               [&] { return PMPI_Isend(buf, count, type, dest, tag, comm, request); });
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  return recv(buf, count, type, source, tag, comm, status,
              [&] { return PMPI_Recv(buf, count, type, source, tag, comm, status); });
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return irecv(buf, count, type, source, tag, comm, request,
               [&] { return PMPI_Irecv(buf, count, type, source, tag, comm, request); });
}

// The send half as MPI_Isend, the receive half as MPI_Recv: both halves intercepted.
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (bypassing() || !active_policy(comm, kP2p))
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                         recvtype, source, recvtag, comm, status);
  MPI_Request sent = MPI_REQUEST_NULL;
  int rc = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sent, [&] {
    return PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sent);
  });
  if (rc != MPI_SUCCESS) return rc;
  rc = recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status, [&] {
    return PMPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  });
  const int waited = PMPI_Wait(&sent, MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : waited;
}

// The outgoing data is copied (packed by MPI) first, then sent and received as MPI_Sendrecv.
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (bypassing() || !active_policy(comm, kP2p) || count <= 0)
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  int size = 0;
  PMPI_Pack_size(count, type, comm, &size);
  std::vector<std::byte> copy(std::max(size_t(size), bytes_of(size_t(count), type)));
  int rc;
  if (float_dtype(type)) {  // contiguous: sent as the array it is, so it may be compressed
    std::memcpy(copy.data(), buf, bytes_of(size_t(count), type));
    rc = MPI_Sendrecv(copy.data(), count, type, dest, sendtag, buf, count, type, source,
                      recvtag, comm, status);
  } else {
    int position = 0;
    PMPI_Pack(buf, count, type, copy.data(), size, &position, comm);
    rc = MPI_Sendrecv(copy.data(), position, MPI_PACKED, dest, sendtag, buf, count, type,
                      source, recvtag, comm, status);
  }
  return rc;
}

// A persistent receive is matched at MPI_Start and completed by MPI's own calls, with no
// moment for this library to decode what it matched: one that a compressed message could
// reach is refused, naming the two ways out, rather than left to deliver compressed bytes.
int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  if (!packed_target(buf, count, type, source, comm))
    return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr,
               "commpress_mpi[%d]: MPI_Recv_init: a persistent receive cannot decode compressed "
               "messages; leave p2p out of COMMPRESS_OPS, or set COMMPRESS_P2P_DECODE=0 on "
               "this rank (its peers then send it plain data)\n", rank);
  *request = MPI_REQUEST_NULL;
  PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

}  // extern "C"
