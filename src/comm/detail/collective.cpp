#include "comm/detail/collective.hpp"

#include <bit>
#include <cstdint>
#include <string>

#include "comm/detail/agreement.hpp"
#include "comm/detail/private_comm.hpp"

namespace commpress::comm::detail {

namespace {

Status check_algorithm(const CollectiveCall& call) {
  if (call.algorithm == Algorithm::Mpi) return {};
  std::string offered = "auto, mpi";
  for (Algorithm a : call.offered) {
    if (a == call.algorithm) return {};
    offered += std::string(", ") + algorithm_name(a);
  }
  return {ErrorCode::invalid_argument, std::string(call.op) + " does not implement algorithm " +
                                           algorithm_name(call.algorithm) + " (it offers " +
                                           offered + ")"};
}

Status local_verdict(Collective& c, const CollectiveCall& call, const Options& opts,
                     const std::function<Status(const Collective&)>& local_checks) {
  COMMPRESS_RETURN_IF_ERROR(check_algorithm(call));
  if (call.has_root && (call.root < 0 || call.root >= c.size))
    return {ErrorCode::invalid_argument, "root " + std::to_string(call.root) +
                                             " is not a rank of this " + std::to_string(c.size) +
                                             "-rank communicator"};
  if (c.algorithm == Algorithm::Mpi) {
    c.wire = Wire::uncompressed(call.dtype, opts.chunk_bytes);
    if (codec::dtype_size(call.dtype) == 0)
      return {ErrorCode::invalid_argument, "unknown dtype " + std::to_string(int(call.dtype))};
    if (call.count > size_t(INT32_MAX))
      return {ErrorCode::unsupported,
              std::string(call.op) + " with Algorithm::Mpi takes at most 2^31-1 elements"};
  } else {
    auto wire = Wire::make(opts, call.dtype);
    if (!wire.ok()) return wire.status();
    c.wire = *wire;
  }
  return local_checks ? local_checks(c) : Status{};
}

}  // namespace

Result<Collective> begin_collective(MPI_Comm user_comm, const CollectiveCall& call,
                                    const Options& opts,
                                    const std::function<Status(const Collective&)>& local_checks,
                                    AgreementExtras* extras) {
  auto comm = private_comm(user_comm);
  if (!comm.ok()) return comm.status();
  Collective c;
  c.comm = *comm;
  c.algorithm = call.algorithm;
  COMMPRESS_MPI(MPI_Comm_rank(c.comm, &c.rank));
  COMMPRESS_MPI(MPI_Comm_size(c.comm, &c.size));
  Status local = local_verdict(c, call, opts, local_checks);
  std::string codec_name = codec_choice(opts, call.dtype);
  std::vector<Field> fields = {
      {"count", int64_t(call.count)},
      {"dtype", int64_t(call.dtype)},
      {"root", int64_t(call.root)},
      {"codec (name fingerprint)", fingerprint(codec_name)},
      {"error bound mode", int64_t(opts.bound.mode)},
      {"error bound value (bits)", std::bit_cast<int64_t>(opts.bound.value)},
      {"algorithm", int64_t(call.algorithm)},
      {"chunk_bytes", int64_t(opts.chunk_bytes)}};
  // An operation's own fields are judged after the local verdicts, as they were when they
  // had a round trip of their own.
  const size_t own = fields.size();
  std::vector<double> no_mins;
  if (extras) fields.insert(fields.end(), extras->fields.begin(), extras->fields.end());
  Status verdict = agree(c.comm, fields, local, extras ? extras->mins : no_mins, own);
  if (!verdict.ok()) return Status{verdict.code(), std::string(call.op) + ": " + verdict.message()};
  return c;
}

Status resolve_bound(Collective& c, const void* data, size_t n) {
  auto wire = agree_abs_bound(c.wire, data, n, c.comm);
  if (!wire.ok()) return wire.status();
  c.wire = *wire;
  return {};
}

Result<Report> end_collective(const Collective& c, const Status& local, const Traffic& traffic) {
  if (c.algorithm == Algorithm::Mpi) {
    COMMPRESS_RETURN_IF_ERROR(local);
  } else {
    COMMPRESS_RETURN_IF_ERROR(agree_outcome(c.comm, local));
  }
  Report r;
  r.algorithm = c.algorithm;
  r.codec = c.wire.codec_name();
  traffic.add_to(r);
  r.guaranteed_abs_bound = c.wire.abs_bound();
  return r;
}

}  // namespace commpress::comm::detail
