#include "comm/session/collective.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "comm/session/agreement.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/node_key.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/value_range.hpp"
#include "core/assert.hpp"

namespace commpress::comm::detail {

namespace {

Status check_algorithm(const CollectiveCall& call, Algorithm alg) {
  if (alg == Algorithm::Auto) return {};
  const AlgorithmInfo* info = algorithm_info(alg);
  if (info && info->serves(call.operation)) return {};
  std::string offered = "auto";
  for (const AlgorithmInfo& a : kAlgorithms)
    if (a.serves(call.operation)) offered += std::string(", ") + a.name;
  return {ErrorCode::invalid_argument, std::string(call.op) + " does not implement algorithm " +
                                           algorithm_name(alg) + " (it offers " + offered + ")"};
}

Status local_verdict(Collective& c, const CollectiveCall& call, const Options& opts,
                     const std::function<Status(const Collective&)>& local_checks) {
  // First: every size below is computed from the count.
  COMMPRESS_RETURN_IF_ERROR(
      check_count(call.op, call.count, call.dtype, call.per_rank ? size_t(c.size) : 1));
  COMMPRESS_RETURN_IF_ERROR(check_algorithm(call, c.algorithm));
  if (call.has_root && (call.root < 0 || call.root >= c.size))
    return {ErrorCode::invalid_argument, "root " + std::to_string(call.root) +
                                             " is not a rank of this " +
                                             std::to_string(c.size) + "-rank communicator"};
  if (runs_uncompressed(c.algorithm)) {
    c.wire = Wire::uncompressed(call.dtype, opts.chunk_bytes);
    if (codec::dtype_size(call.dtype) == 0)
      return {ErrorCode::invalid_argument, "unknown dtype " + std::to_string(int(call.dtype))};
    if (c.algorithm == Algorithm::Mpi && call.count > size_t(INT32_MAX))
      return {ErrorCode::unsupported, std::string(call.op) +
                                          " with Algorithm::Mpi takes at most 2^31-1 elements"};
  } else {
    auto wire = Wire::make(opts, call.dtype);
    if (!wire.ok()) return wire.status();
    c.wire = *wire;
  }
  return local_checks ? local_checks(c) : Status{};
}

// As the caller spelled the call (the model's reduce_scatter is reduce_scatter_block).
std::string show_operation(int64_t v) {
  const auto op = model::Operation(uint8_t(v));
  return op == model::Operation::reduce_scatter ? "reduce_scatter_block"
                                                : model::operation_name(op);
}

constexpr std::string_view kOperationMismatch = "ranks disagree on operation:";

Status named(const CollectiveCall& call, const Status& st) {
  // A disagreement on the operation is about every rank's call, not this one's: it reads the
  // same everywhere.
  if (st.ok() || st.message().starts_with(kOperationMismatch)) return st;
  return Status{st.code(), std::string(call.op) + ": " + st.message()};
}

}  // namespace

Result<Collective> begin_collective(MPI_Comm user_comm, const CollectiveCall& call, Choice& choice,
                                    const std::function<Status(const Collective&)>& local_checks,
                                    AgreementExtras* extras) {
  auto comm = private_comm(user_comm);
  if (!comm.ok()) return comm.status();
  Collective c;
  c.comm = *comm;
  c.algorithm = choice.algorithm;
  COMMPRESS_MPI(MPI_Comm_rank(c.comm, &c.rank));
  COMMPRESS_MPI(MPI_Comm_size(c.comm, &c.size));
  const Options& opts = choice.options;
  Status local = local_verdict(c, call, opts, local_checks);
  std::string codec_name = codec_choice(opts, call.dtype);
  std::vector<Field> fields = {
      {"operation", int64_t(call.operation), show_operation, false},
      unsigned_field("count", call.count),
      {"dtype", int64_t(call.dtype)},
      {"root", int64_t(call.root)},
      {"codec (name fingerprint)", fingerprint(codec_name)},
      {"error bound mode", int64_t(opts.bound.mode)},
      {"error bound value (bits)", std::bit_cast<int64_t>(opts.bound.value)},
      {"algorithm", int64_t(choice.algorithm)},
      {"chunk_bytes", int64_t(opts.chunk_bytes)},
      // Auto decides from the profile on every rank (with or without a codec to weigh): the
      // same decision needs the same one.
      {"machine profile (fingerprint)",
       opts.algorithm == Algorithm::Auto ? machine_profile_fingerprint() : 0}};
  // An operation's own fields are judged after the local verdicts, as they were when they
  // had a round trip of their own.
  const size_t own = fields.size();
  std::vector<double> mins;
  if (extras) {
    fields.insert(fields.end(), extras->fields.begin(), extras->fields.end());
    mins = extras->mins;
  }
  // The model prices this round trip by its size (kArgumentBytes in src/model/predict.cpp:
  // both ends of own + kOwnFields fields, the verdict, the minima below): keep them in step.
  COMMPRESS_ASSERT(fields.size() <= own + kOwnFields && mins.size() <= kOwnMins);
  fields.resize(own + kOwnFields, Field{"(unused)", 0});
  mins.resize(kOwnMins, 0.0);
  // The node each rank runs on, as its smallest and largest key: equal when all share one.
  const size_t node_at = mins.size();
  mins.insert(mins.end(), {node_key(), -node_key()});
  const size_t selection_at = mins.size();
  const auto selection = choice.mins();
  mins.insert(mins.end(), selection.begin(), selection.end());
  COMMPRESS_RETURN_IF_ERROR(named(call, agree(c.comm, fields, local, mins, own)));
  if (extras) std::copy_n(mins.begin(), extras->mins.size(), extras->mins.begin());
  c.one_node = mins[node_at] == -mins[node_at + 1];
  if (extras && extras->reprices_at_range && mins[2] == 1.0)
    at_agreed_range(std::span(mins).subspan(selection_at), -mins[1] - mins[0],
                    codec::dtype_size(call.dtype));
  std::copy_n(mins.begin() + ptrdiff_t(selection_at), c.selection.size(), c.selection.begin());
  if (choice.pending) {
    choice.settle(choice.pending->decide(mins.data() + selection_at, c.one_node));
    c.algorithm = choice.algorithm;
    COMMPRESS_RETURN_IF_ERROR(named(call, local_verdict(c, call, choice.options, local_checks)));
  }
  if (c.algorithm == Algorithm::SharedWindow && !c.one_node)
    return Status{ErrorCode::unsupported,
                  std::string(call.op) +
                      ": shared_window needs every rank on one node (these ranks run on several)"};
  return c;
}

AgreementExtras range_extras(const Choice& choice, Dtype dtype, const void* data, size_t n) {
  const Options& o = choice.options;
  const bool rel = o.bound.mode == codec::BoundMode::rel && codec::is_float(dtype) &&
                   codec_choice(o, dtype) != "none";
  // (a count no buffer can hold is refused by the agreement: nothing of it is read)
  const bool nothing = data == nullptr || n == 0 || !count_fits(n, dtype);
  const bool uncompressed =
      choice.pending ? choice.pending->expects_mpi() : runs_uncompressed(choice.algorithm);
  // A rank with data skips the pass where it expects no compression; one without data (a
  // bcast's or scatter's other ranks) has its part, nothing, at no cost.
  if (!rel || (uncompressed && !nothing)) return {{}, {0.0, 0.0, 0.0}, true};
  const ValueRange r = local_range(dtype, nothing ? nullptr : data, n);
  return {{}, {r.lo, -r.hi, 1.0}, true};
}

Place place_in(MPI_Comm comm) {
  Place at;
  auto pc = private_comm(comm);
  if (!pc.ok() || MPI_Comm_rank(*pc, &at.rank) != MPI_SUCCESS ||
      MPI_Comm_size(*pc, &at.size) != MPI_SUCCESS)
    return {};
  return at;
}

Status resolve_bound(Collective& c, const AgreementExtras& agreed, const void* data, size_t n) {
  const bool carried = agreed.mins.size() == 3 && agreed.mins[2] == 1.0;
  auto wire = carried ? agreed_abs_bound(c.wire, agreed.mins[0], -agreed.mins[1])
                      : agree_abs_bound(c.wire, data, n, c.comm);
  if (!wire.ok()) return wire.status();
  c.wire = *wire;
  return {};
}

Result<Report> end_collective(const Collective& c, const Status& local, const Traffic& traffic) {
  if (runs_uncompressed(c.algorithm)) {
    COMMPRESS_RETURN_IF_ERROR(local);
  } else {
    COMMPRESS_RETURN_IF_ERROR(agree_outcome(c.comm, local));
  }
  Report r;
  r.algorithm = c.algorithm;
  r.codec = c.wire.codec_name();
  traffic.add_to(r);
  r.guaranteed_abs_bound = c.wire.abs_bound();
  if (c.algorithm != Algorithm::Mpi && c.algorithm != Algorithm::PlainBinomial &&
      c.algorithm != Algorithm::SharedWindow)
    r.chunk_bytes = c.wire.chunk_bytes();
  return r;
}

}  // namespace commpress::comm::detail
