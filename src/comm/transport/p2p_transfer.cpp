#include "comm/transport/p2p_transfer.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "comm/selection/planning.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::detail {

namespace {

std::string num(uint64_t v) { return std::to_string(v); }

std::string bound_text(codec::BoundMode mode, double value) {
  if (mode == codec::BoundMode::lossless) return "lossless";
  return std::string(codec::bound_mode_name(mode)) + " " + std::to_string(value);
}

Status mismatch(const std::string& what) { return {ErrorCode::mismatch, what}; }

// The wire the sender's chunks travel with: its codec's, or uncompressed when it declined.
Wire travelling_wire(const Endpoint& me, const MessageHeader& h) {
  if (h.plain) return Wire::uncompressed(me.dtype).with_chunk_elems(h.chunk_elems);
  return me.announced().with_chunk_elems(h.chunk_elems);
}

// The sender's claims against this receive's own arguments.
Status judge(const Endpoint& me, const MessageHeader& h, int source) {
  if (h.sender_status != ErrorCode::ok)
    return {h.sender_status, "the sender (rank " + std::to_string(source) +
                                 ") failed before sending: " + error_code_name(h.sender_status)};
  if (!me.local.ok()) return me.local;
  if (me.algorithm == Algorithm::Mpi)
    return mismatch("the sender compresses (codec " + h.codec +
                    ") but this receive uses Algorithm::Mpi");
  if (h.count != me.count)
    return mismatch("the sender sends " + num(h.count) + " elements, this receive expects " +
                    num(me.count));
  if (h.dtype != me.dtype)
    return mismatch(std::string("the sender sends ") + codec::dtype_name(h.dtype) +
                    ", this receive expects " + codec::dtype_name(me.dtype));
  // Both sides' requests are compared, whatever Auto made of them on either side.
  const Wire& asked = me.announced();
  std::string mine = asked.codec_name().substr(0, kMessageCodecNameSize);
  if (h.codec != mine)
    return mismatch("the sender uses codec " + h.codec + ", this receive codec " + mine);
  if (asked.lossy() && (h.mode != me.bound.mode || std::bit_cast<uint64_t>(h.requested_bound) !=
                                                       std::bit_cast<uint64_t>(me.bound.value)))
    return mismatch("the sender's error bound is " + bound_text(h.mode, h.requested_bound) +
                    ", this receive's " + bound_text(me.bound.mode, me.bound.value));
  // 0 is a REL bound over a range of 0 (exact frames); an ABS one is the value asked for.
  if (asked.lossy() && !h.plain &&
      !(std::isfinite(h.abs_bound) && (h.abs_bound > 0 || (h.abs_bound == 0 && h.mode == codec::BoundMode::rel))))
    return {ErrorCode::corrupt_frame, "the sender's header carries absolute bound " +
                                          std::to_string(h.abs_bound)};
  Wire theirs = travelling_wire(me, h);
  if (h.chunk_elems != theirs.chunk_elems() ||
      h.chunk_capacity != theirs.frame_capacity(h.chunk_elems) || h.chunk_capacity > INT32_MAX)
    return mismatch("the sender's chunk frames hold up to " + num(h.chunk_capacity) +
                    " bytes for " + num(h.chunk_elems) + " elements; this side computes " +
                    num(theirs.frame_capacity(h.chunk_elems)));
  return {};
}

// Consumes `messages` messages from source/tag whatever their size.
Status drain(uint64_t messages, int source, int tag, MPI_Comm comm) {
  std::vector<std::byte> scratch;
  for (uint64_t i = 0; i < messages; ++i) {
    ProbedMessage msg;
    MPI_Status st;
    COMMPRESS_MPI(matched_probe(source, tag, comm, &msg, &st));
    int len = 0;
    COMMPRESS_MPI(MPI_Get_count(&st, MPI_BYTE, &len));
    scratch.resize(size_t(len));
    COMMPRESS_MPI(matched_recv(scratch.data(), len, &msg));
  }
  return {};
}

}  // namespace

Endpoint make_endpoint(const void* buf, size_t count, Dtype dtype, const Options& opts) {
  Endpoint e;
  e.count = count;
  e.dtype = dtype;
  e.bound = opts.bound;
  // The plan decides; what follows only checks this side's arguments and builds its wire.
  auto plan = plan_p2p(count, dtype, opts, nullptr);
  e.algorithm = plan.ok() ? plan->algorithm
                : opts.algorithm == Algorithm::Auto ? Algorithm::Direct
                                                    : opts.algorithm;
  if (plan.ok()) e.predicted_seconds = plan->predicted_seconds;
  if (e.algorithm != Algorithm::Direct && e.algorithm != Algorithm::Mpi) {
    e.local = plan.status();  // an algorithm point-to-point lacks
    return e;
  }
  if (count > 0 && buf == nullptr) {
    e.local = {ErrorCode::invalid_argument, "null buffer with a non-zero count"};
    return e;
  }
  if (Status st = check_count("point-to-point", count, dtype); !st.ok()) {
    e.local = st;
    return e;
  }
  if (e.algorithm == Algorithm::Mpi) {
    e.wire = Wire::uncompressed(dtype);
    if (codec::dtype_size(dtype) == 0)
      e.local = {ErrorCode::invalid_argument, "unknown dtype " + num(uint64_t(dtype))};
    else if (count * e.wire.elem_size() > size_t(INT32_MAX))
      e.local = {ErrorCode::unsupported, "Algorithm::Mpi sends at most 2 GiB in one message"};
    return e;
  }
  if (!plan.ok()) {
    e.local = plan.status();  // options that make no wire
    return e;
  }
  // The plan's wire: the codec's, or where the plan declines it, raw chunks of its size.
  auto wire = Wire::make(options_of(*plan), dtype);
  if (!wire.ok()) {
    e.local = wire.status();
  } else if (plan->compress || !wire->compressed()) {
    e.wire = *wire;
  } else {
    e.declined = *wire;
    e.wire = Wire::uncompressed(dtype).with_chunk_elems(wire->chunk_elems());
  }
  return e;
}

MessageHeader sender_header(Endpoint& e, const void* buf) {
  MessageHeader h;
  if (e.local.ok()) {
    auto resolved = local_abs_bound(e.wire, buf, e.count);
    if (resolved.ok()) e.wire = *resolved;
    else e.local = resolved.status();
  }
  h.sender_status = e.local.code();
  h.dtype = e.dtype;
  h.count = e.count;
  h.codec = e.announced().codec_name();
  h.plain = e.declined.has_value();
  h.chunk_elems = e.wire.chunk_elems();
  h.chunk_capacity = e.wire.frame_capacity(e.wire.chunk_elems());
  if (e.announced().lossy()) {
    h.mode = e.bound.mode;
    h.requested_bound = e.bound.value;
    h.abs_bound = e.wire.abs_bound();  // 0 when the chunks travel uncompressed
  }
  return h;
}

Opening open_transfer(const Endpoint& me, void* buf, ProbedMessage& msg, const MPI_Status& st,
                      MPI_Comm comm) {
  Opening o;
  o.source = st.MPI_SOURCE;
  o.tag = st.MPI_TAG;
  int len = 0;
  if (int rc = MPI_Get_count(&st, MPI_BYTE, &len); rc != MPI_SUCCESS) {
    o.verdict = mpi_status(rc, "MPI_Get_count");
    return o;
  }
  const size_t expect_raw = me.count * me.wire.elem_size();
  const bool plain_wanted = me.local.ok() && me.algorithm == Algorithm::Mpi;
  // The usual Algorithm::Mpi case lands straight in the caller's buffer.
  if (plain_wanted && size_t(len) == expect_raw && expect_raw != kMessageHeaderSize) {
    if (int rc = matched_recv(buf, len, &msg); rc != MPI_SUCCESS)
      o.verdict = mpi_status(rc, "MPI_Mrecv");
    return o;
  }
  std::vector<std::byte> bytes(static_cast<size_t>(len));
  if (int rc = matched_recv(bytes.data(), len, &msg); rc != MPI_SUCCESS) {
    o.verdict = mpi_status(rc, "MPI_Mrecv");
    return o;
  }
  if (!looks_like_header(bytes)) {
    if (plain_wanted && bytes.size() == expect_raw) {
      if (!bytes.empty()) std::memcpy(buf, bytes.data(), bytes.size());
    } else if (!me.local.ok()) {
      o.verdict = me.local;
    } else {
      o.verdict = mismatch("received " + num(bytes.size()) + " bytes of plain data; this " +
                           (plain_wanted ? "receive expects " + num(expect_raw) + " bytes"
                                         : std::string("compressed receive expects a header "
                                                       "(does the sender use Algorithm::Mpi?)")));
    }
    return o;
  }
  auto h = parse_header(bytes);
  if (!h.ok()) {
    o.verdict = h.status();
    return o;
  }
  o.verdict = judge(me, *h, o.source);
  if (!o.verdict.ok()) {
    Status drained = drain(h->chunks(), o.source, o.tag, comm);
    if (!drained.ok()) o.verdict = drained;
    return o;
  }
  o.stream = true;
  o.wire = travelling_wire(me, *h);
  if (!h->plain) o.wire = o.wire.with_abs_bound(h->abs_bound);
  return o;
}

Report p2p_report(const Endpoint& e, const Wire& wire, const Traffic& traffic) {
  Report r;
  r.algorithm = e.algorithm;
  r.codec = e.algorithm == Algorithm::Mpi ? "none" : wire.codec_name();
  traffic.add_to(r);
  r.guaranteed_abs_bound = e.algorithm == Algorithm::Mpi ? 0.0 : wire.abs_bound();
  r.predicted_seconds = e.predicted_seconds;
  if (e.algorithm != Algorithm::Mpi) r.chunk_bytes = wire.chunk_bytes();
  return r;
}

}  // namespace commpress::comm::detail
