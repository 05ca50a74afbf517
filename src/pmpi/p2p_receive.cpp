#include "pmpi/p2p_receive.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>

#include "commpress/packed_message.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/comm_policy.hpp"
#include "pmpi/intercept.hpp"
#include "pmpi/p2p_peers.hpp"
#include "pmpi/request_status.hpp"

namespace commpress::pmpi {

namespace {

bool predefined(MPI_Datatype t) {
  int ints = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(t, &ints, &addresses, &types, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

MPI_Datatype mpi_type(comm::Dtype d) { return d == comm::Dtype::f32 ? MPI_FLOAT : MPI_DOUBLE; }

// Copies `count` elements of `from_type` at `from` into the application's (buf, count, type)
// layout by a message to itself (self_message): MPI's own unpacking into any datatype.
int place(const void* from, MPI_Count count, MPI_Datatype from_type, const Target& t) {
  if (count > INT32_MAX) return MPI_ERR_COUNT;
  const SelfMessage self = self_message();
  MPI_Status st;
  return PMPI_Sendrecv(from, int(count), from_type, 0, self.tag, t.buf, t.count, t.type, 0,
                       self.tag, self.comm, &st);
}

int error_class(ErrorCode c) {
  return c == ErrorCode::truncated || c == ErrorCode::capacity ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER;
}

}  // namespace

Target target_of(void* buf, int count, MPI_Datatype type, MPI_Comm comm) {
  Target t;
  t.buf = buf;
  t.count = count;
  t.type = type;
  t.policy = policy_for(comm);
  if (auto d = float_dtype(type)) {
    t.floats = true;
    t.dtype = *d;
  }
  t.capacity_bytes = bytes_of(size_t(std::max(count, 0)), type);
  return t;
}

std::optional<Target> packed_target(void* buf, int count, MPI_Datatype type, int source,
                                    MPI_Comm comm) {
  if (source == MPI_PROC_NULL || count <= 0 || !this_rank_decodes()) return std::nullopt;
  const Policy* p = active_policy(comm, kP2p);
  if (!p) return std::nullopt;
  // Integers, pairs, ...: no float array matches them.
  if (!float_dtype(type) && type != MPI_BYTE && type != MPI_PACKED && predefined(type))
    return std::nullopt;
  Target t = target_of(buf, count, type, comm);
  // A sender compresses only arrays of at least min_bytes, which a smaller receive cannot hold.
  if (t.capacity_bytes < p->min_bytes) return std::nullopt;
  return t;
}

Delivered deliver(const Target& t, std::span<const std::byte> message, bool in_buffer) {
  Delivered d;
  const uint64_t key = p2p_key();
  auto info = comm::may_be_packed_message(message.size())
                  ? comm::packed_message_info(message, key)
                  : Result<comm::PackedInfo>(Status{ErrorCode::mismatch, "plain"});
  if (!info.ok()) {
    if (info.status().code() != ErrorCode::mismatch) {
      d.error = MPI_ERR_OTHER;
      d.why = info.status().to_string();
      return d;
    }
    d.bytes = message.size();  // a plain message
    if (!in_buffer) d.error = place(message.data(), MPI_Count(message.size()), MPI_BYTE, t);
    return d;
  }
  d.dtype = info->dtype;
  d.bytes = info->count * codec::dtype_size(info->dtype);
  if (t.floats && info->dtype != t.dtype) {
    d.error = MPI_ERR_TYPE;
    d.why = std::string("the message carries ") + codec::dtype_name(info->dtype) +
            " and the receive expects " + codec::dtype_name(t.dtype);
    return d;
  }
  Result<comm::Report> r = Status{};
  if (t.floats) {
    std::unique_ptr<std::byte[]> copy;
    std::span<const std::byte> from = message;
    if (in_buffer) {  // the frames sit where the decoded array goes
      copy.reset(new std::byte[message.size()]);
      std::memcpy(copy.get(), message.data(), message.size());
      from = {copy.get(), message.size()};
    }
    r = comm::unpack_message(from, key, t.buf, size_t(t.count));
  } else {
    std::unique_ptr<std::byte[]> array(new std::byte[d.bytes]);
    r = comm::unpack_message(message, key, array.get(), info->count);
    if (r.ok()) d.error = place(array.get(), MPI_Count(info->count), mpi_type(info->dtype), t);
  }
  if (!r.ok()) {
    d.error = error_class(r.status().code());
    d.why = r.status().to_string();
    return d;
  }
  d.report = *r;
  return d;
}

void log_delivery(const char* mpi_name, const Target& t, int source, const Delivered& d,
                  double seconds) {
  if (d.error != MPI_SUCCESS) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "commpress_mpi[%d]: %s from rank %d: %s\n", rank, mpi_name, source,
                 d.why.empty() ? "MPI could not place the message" : d.why.c_str());
    return;
  }
  if (!d.report) return;  // a plain message: MPI's own receive, nothing to say
  CallFacts f{mpi_name, kP2p, d.bytes / codec::dtype_size(d.dtype), t.type, MPI_OP_NULL, d.bytes};
  f.peer = source;
  f.received = true;
  record_intercepted(f, *d.report, *t.policy, seconds);
}

}  // namespace commpress::pmpi
