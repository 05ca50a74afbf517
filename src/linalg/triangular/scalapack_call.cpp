#include "linalg/triangular/scalapack_call.hpp"

namespace commpress::linalg::detail {

Status CallWire::prepare() {
  auto o = triangular_options();
  if (!o.ok()) return o.status();
  options_ = *o;
  auto c = BlockCodec::create(options_.codec, options_.abs_bound > 0
                                                  ? codec::ErrorBound::absolute(options_.abs_bound)
                                                  : codec::ErrorBound::lossless());
  if (!c.ok()) return c.status();
  codec_.emplace(std::move(*c));
  wire_.codec = &*codec_;
  wire_.abs_bound = options_.abs_bound;
  return {};
}

void CallWire::add_fields(CallFields& f, int position) const {
  f.add("codec option", comm::detail::fingerprint(options_.codec), position);
  f.add("bound option", value_bits(options_.abs_bound), position);
  f.add("layers option", options_.layers, position);
}

Status CallWire::finish(MPI_Comm comm, bool bound_derived) {
  // Layers of a 2.5D run derive their bounds apart: the call's is the largest.
  MPI_Allreduce(MPI_IN_PLACE, &wire_.result_bound, 1, MPI_DOUBLE, MPI_MAX, comm);
  record_result_bound(wire_.abs_bound > 0 ? (bound_derived ? wire_.result_bound : -1) : 0);
  return agree_identically(comm, {}, wire_.error);
}

}  // namespace commpress::linalg::detail
