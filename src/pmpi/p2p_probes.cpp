// The probes on a communicator whose policy names p2p. MPI_Probe / MPI_Iprobe: a message
// whose length may be a packed one's is received into the stash (p2p_stash.hpp), so the
// status reports the plain array's count; any other message stays in MPI, its status MPI's
// own. MPI_Mprobe / MPI_Improbe must hand out an MPI_Message: such a message (or a kept one)
// is received, decoded if it is packed, and sent again to this process on a private
// duplicate of MPI_COMM_SELF, where a matched probe gives the handle; MPI_Mrecv / MPI_Imrecv
// of that handle then report the original source and tag.
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "commpress/packed_message.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/intercept.hpp"
#include "pmpi/p2p_progress.hpp"
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
  Stashed s;
  rc = receive_matched(comm, handle, st, s);
  if (rc != MPI_SUCCESS) return rc;
  auto info = comm::packed_message_info(s.message(), p2p_key());
  s.plain_bytes = info.ok() ? info->count * codec::dtype_size(info->dtype) : s.size;
  report(s, status);
  stash(std::move(s));
  return MPI_SUCCESS;
}

// ---- matched probes ----

struct Origin {
  int source, tag;
};

struct Reinjected {
  std::mutex mutex;
  std::map<MPI_Message, Origin> origins;  // handles given out, until received
};

Reinjected& reinjected() {
  static Reinjected r;
  return r;
}

std::optional<Origin> take_origin(MPI_Message m) {
  Reinjected& r = reinjected();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.origins.find(m);
  if (it == r.origins.end()) return std::nullopt;
  Origin o = it->second;
  r.origins.erase(it);
  return o;
}

// The send to itself, finished (and its array freed) once the application received it.
class SelfSend final : public P2pWork {
 public:
  std::vector<std::byte> data;
  bool is_receive() const override { return false; }
  void finished(const MPI_Status&) override {}
};

// Hands out a handle for the kept message s: its plain array (decoded where packed) sent to
// this process on a private communicator, matched there.
int reinject(const Stashed& s, MPI_Message* message, MPI_Status* status) {
  const SelfMessage self = self_message();
  auto w = std::make_unique<SelfSend>();
  MPI_Datatype type = MPI_BYTE;
  size_t count = s.size;
  auto info = comm::packed_message_info(s.message(), p2p_key());
  if (info.ok()) {
    w->data.resize(info->count * codec::dtype_size(info->dtype));
    auto r = comm::unpack_message(s.message(), p2p_key(), w->data.data(), info->count);
    if (!r.ok()) {
      int rank = 0;
      PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
      std::fprintf(stderr, "commpress_mpi[%d]: matched probe from rank %d: %s\n", rank, s.source,
                   r.status().to_string().c_str());
      PMPI_Comm_call_errhandler(s.comm, MPI_ERR_OTHER);
      return MPI_ERR_OTHER;
    }
    type = info->dtype == comm::Dtype::f32 ? MPI_FLOAT : MPI_DOUBLE;
    count = info->count;
  } else {
    w->data.assign(s.data.get(), s.data.get() + s.size);
  }
  const size_t w_bytes = w->data.size();
  int rc = PMPI_Isend(w->data.data(), int(count), type, 0, self.tag, self.comm, &w->inner);
  if (rc != MPI_SUCCESS) return rc;
  progress_p2p(std::move(w));
  MPI_Status ignored;
  rc = PMPI_Mprobe(0, self.tag, self.comm, message, &ignored);
  if (rc != MPI_SUCCESS) return rc;
  {
    Reinjected& r = reinjected();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.origins[*message] = {s.source, s.tag};
  }
  set_status(status, s.source, s.tag, w_bytes, MPI_SUCCESS);
  return MPI_SUCCESS;
}

// A message PMPI matched (handle, st) that may be packed: taken out and handed out again.
int reinject_matched(MPI_Comm comm, MPI_Message handle, const MPI_Status& st,
                     MPI_Message* message, MPI_Status* status) {
  Stashed s;
  const int rc = receive_matched(comm, handle, st, s);
  return rc != MPI_SUCCESS ? rc : reinject(s, message, status);
}

// Matched probe, blocking or not (flag == nullptr: blocking).
int matched_probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                  MPI_Status* status) {
  Bypass inside;
  if (auto s = take_stashed(comm, source, tag)) {
    if (flag) *flag = 1;
    return reinject(*s, message, status);
  }
  MPI_Message handle;
  MPI_Status st;
  int rc = flag ? PMPI_Improbe(source, tag, comm, flag, &handle, &st)
                : PMPI_Mprobe(source, tag, comm, &handle, &st);
  if (rc != MPI_SUCCESS || (flag && !*flag)) return rc;
  MPI_Count length = 0;
  PMPI_Get_elements_x(&st, MPI_BYTE, &length);
  if (!comm::may_be_packed_message(size_t(length))) {
    *message = handle;
    if (status != MPI_STATUS_IGNORE) *status = st;
    return MPI_SUCCESS;
  }
  return reinject_matched(comm, handle, st, message, status);
}

// The status of a receive of a re-injected message: MPI's count, the original source and tag.
void restore_origin(const Origin& o, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = o.source;
  status->MPI_TAG = o.tag;
}

struct ImrecvOutcome {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Status status{};
};

int query_imrecv(void* extra, MPI_Status* status) {
  *status = static_cast<ImrecvOutcome*>(extra)->status;
  return status->MPI_ERROR;
}
int free_imrecv(void* extra) {
  delete static_cast<ImrecvOutcome*>(extra);
  return MPI_SUCCESS;
}
int cancel_imrecv(void*, int) { return MPI_SUCCESS; }  // a matched message is not cancelled

class ReinjectedRecv final : public P2pWork {
 public:
  ReinjectedRecv(Origin o, ImrecvOutcome* out) : origin(o), outcome(out) {}
  Origin origin;
  ImrecvOutcome* outcome;  // freed with the application's request, after completion
  bool is_receive() const override { return false; }  // matched already: it completes
  void finished(const MPI_Status& st) override {
    outcome->status = st;
    outcome->status.MPI_ERROR = MPI_SUCCESS;
    restore_origin(origin, &outcome->status);
    const MPI_Request r = outcome->request;
    PMPI_Grequest_complete(r);
  }
};

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

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  if (bypassing() || !probes_packed(source, comm))
    return PMPI_Mprobe(source, tag, comm, message, status);
  return matched_probe(source, tag, comm, nullptr, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  if (bypassing() || !probes_packed(source, comm))
    return PMPI_Improbe(source, tag, comm, flag, message, status);
  return matched_probe(source, tag, comm, flag, message, status);
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  const auto origin = bypassing() ? std::nullopt : take_origin(*message);
  if (!origin) return PMPI_Mrecv(buf, count, type, message, status);
  const int rc = PMPI_Mrecv(buf, count, type, message, status);
  restore_origin(*origin, status);
  return rc;
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
               MPI_Request* request) {
  const auto origin = bypassing() ? std::nullopt : take_origin(*message);
  if (!origin) return PMPI_Imrecv(buf, count, type, message, request);
  Bypass inside;
  auto* outcome = new ImrecvOutcome;
  auto w = std::make_unique<ReinjectedRecv>(*origin, outcome);
  int rc = PMPI_Imrecv(buf, count, type, message, &w->inner);
  if (rc != MPI_SUCCESS) {
    delete outcome;
    return rc;
  }
  rc = PMPI_Grequest_start(query_imrecv, free_imrecv, cancel_imrecv, outcome, request);
  if (rc != MPI_SUCCESS) return rc;
  outcome->request = *request;
  progress_p2p(std::move(w));
  return MPI_SUCCESS;
}

}  // extern "C"
