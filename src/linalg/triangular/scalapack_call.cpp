#include "linalg/triangular/scalapack_call.hpp"

#include <string>

#include "comm/select.hpp"
#include "model/triangular_model.hpp"

namespace commpress::linalg::detail {

Status CallWire::prepare(codec::Dtype dtype) {
  auto o = triangular_options();
  if (!o.ok()) return o.status();
  options_ = *o;
  auto w = Wire::resolved(options_.codec, dtype, options_.abs_bound);
  if (!w.ok()) return w.status();
  frames_.emplace(std::move(*w));
  wire_.frames = &*frames_;
  wire_.abs_bound = options_.abs_bound;
  wire_.update_width = options_.update_width;
  return {};
}

void CallWire::add_fields(CallFields& f, int position) const {
  f.add("codec option", comm::detail::fingerprint(options_.codec), position);
  f.add("bound option", value_bits(options_.abs_bound), position);
  f.add("layers option", options_.layers, position);
  f.add("update width option", options_.update_width, position);
}

Result<int> CallWire::planned_layers(bool cholesky, int64_t n, int64_t nrhs, int nb,
                                     int elem_size, const Grid& grid) const {
  const model::MachineProfile& prof = comm::detail::machine_profile();
  model::TriangularScenario s;
  s.n = n;
  s.nrhs = nrhs;
  s.nb = nb;
  s.elem_size = elem_size;
  s.grid = {grid.rows(), grid.cols(), 1};
  s.link = prof.network;
  s.flops = model::gemm_flop_rate(prof, elem_size == 4 ? codec::Dtype::f32 : codec::Dtype::f64);
  s.update_width = options_.update_width;
  // The panels' codec as the profile measured it (its typical ratio: the plan sees no data).
  if (frames_ && frames_->compressed())
    s.codec = model::gemm_codec(prof.rates(options_.codec, elem_size == 4 ? codec::Dtype::f32
                                                                          : codec::Dtype::f64));
  const int layers = cholesky ? model::plan_cholesky(s, 0, options_.memory_cap).layers
                              : model::plan_trsm(s, 0, options_.memory_cap).layers;
  COMMPRESS_RETURN_IF_ERROR(agree_identically(grid.comm(), {{"planned layers", layers}}, {}));
  return layers;
}

Result<int> CallWire::run_layers(bool cholesky, int64_t n, int64_t nrhs, int nb, int elem_size,
                                 const Grid& grid) const {
  int layers = options_.layers;
  if (layers == 0) {
    auto chosen = planned_layers(cholesky, n, nrhs, nb, elem_size, grid);
    if (!chosen.ok()) return chosen.status();
    layers = *chosen;
  }
  const int p = grid.rows() * grid.cols();
  if (layers > 1 && p % layers != 0)
    return Status{ErrorCode::invalid_argument, std::to_string(layers) +
                                             " layers do not divide the grid's " +
                                             std::to_string(p) + " processes"};
  return layers;
}

Status CallWire::finish(MPI_Comm comm, bool bound_derived) {
  // Layers of a 2.5D run derive their bounds apart: the call's is the largest.
  MPI_Allreduce(MPI_IN_PLACE, &wire_.result_bound, 1, MPI_DOUBLE, MPI_MAX, comm);
  record_result_bound(wire_.abs_bound > 0 ? (bound_derived ? wire_.result_bound : -1) : 0);
  int64_t moved = wire_.bytes;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT64_T, MPI_SUM, comm);
  record_moved_bytes(moved);
  return agree_identically(comm, {}, wire_.error);
}

}  // namespace commpress::linalg::detail
