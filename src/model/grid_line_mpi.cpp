// MPI's own collectives over one grid line (a multiply's blocking broadcasts, its agreements),
// priced by the collectives' model of what Open MPI's tuned component runs
// (open_mpi_tuned.cpp): the line's members per_node to a node, its crossing link (shared with
// the node's other lines, which take the same step at the same moment) as the network and
// its inside link as the node's.
#include "model/cost_terms.hpp"
#include "model/gemm_terms.hpp"

namespace commpress::model::detail {

namespace {

double on_line(const GridLine& g, Operation op, double bytes, double (*price)(const Terms&)) {
  if (g.size <= 1) return 0;
  MachineProfile m;
  m.network = g.crosses() ? g.across : g.inside;
  m.intra_node = g.inside;
  m.switch_link = g.switch_link;
  m.switch_nodes = g.switch_nodes;
  Scenario sc;
  sc.op = op;
  sc.bytes = bytes;
  sc.ranks = g.size;
  sc.ranks_per_node = g.per_node;
  sc.node_stride = g.node_stride;
  return price(Terms(m, nullptr, sc));
}

}  // namespace

double GridLine::length_bcast(const GemmCodec& z) const {
  return z.enabled ? on_line(*this, Operation::bcast, 8, mpi_bcast_cost) : 0;
}

// A compressed block's frame goes after its length.
double GridLine::bcast(const GemmCodec& z, double bytes) const {
  return length_bcast(z) + on_line(*this, Operation::bcast, z.wire(bytes), mpi_bcast_cost);
}

double GridLine::allreduce(double bytes) const {
  return on_line(*this, Operation::allreduce, bytes, mpi_reduction_cost);
}

}  // namespace commpress::model::detail
