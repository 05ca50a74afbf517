// Dispatch of the per-operation formulas, and the choice Algorithm::Auto makes from them.
#include <algorithm>
#include <cmath>

#include "model/cost_terms.hpp"

namespace commpress::model {

namespace {

bool is_movement(Operation op) {
  return op == Operation::p2p || op == Operation::bcast || op == Operation::allgather ||
         op == Operation::scatter || op == Operation::gather;
}

// Whether the chunk size is worth choosing: point-to-point and bcast stream chunks through a
// pipeline everywhere; the reductions' rings gain from small chunks only where the link moves
// them while the ranks compute, so without that measurement (older profiles) they keep the
// default rather than trade their pipelining for fewer messages.
bool pipelined(const MachineProfile& m, Operation op) {
  if (op == Operation::p2p || op == Operation::bcast) return true;
  const bool ring = op == Operation::reduce_scatter || op == Operation::allreduce ||
                    op == Operation::reduce;
  return ring && m.network.overlap_bytes > 0;
}

// A REL bound costs compressed collectives one more small allreduce (the global range).
double range_agreement(const MachineProfile& m, const Scenario& s) {
  if (!s.rel_bound || s.op == Operation::p2p || s.ranks <= 1) return 0;
  return 2 * detail::ceil_log2(s.ranks) * m.network.time(16);
}

// How much faster than the candidates before it an algorithm must be predicted to displace
// them. The allgather ring and Bruck move the same bytes and, at p = 4, differ in the model by
// one message latency, yet Bruck measured slower than the ring in nearly every large case of
// the collectives benchmark (docs/measured-choices.md), so it must earn its place by the
// latencies it saves (small messages, many ranks). Why it is slower is not in the model (a
// guess: its pairwise steps send both ways on one TCP connection).
double displace_margin(Operation op, Algorithm a) {
  return op == Operation::allgather && a == Algorithm::RecursiveDoubling ? 0.05 : 0.0;
}

}  // namespace

double predict(const MachineProfile& m, const CodecRates* rates, Algorithm a, const Scenario& s) {
  if (a == Algorithm::Mpi) {
    detail::Terms t(m, rates, s);
    return is_movement(s.op) ? detail::movement_cost(t, a) : detail::mpi_reduction_cost(t);
  }
  if (a == Algorithm::PlainRing) return detail::plain_ring_cost(detail::Terms(m, rates, s));
  if (a == Algorithm::SharedWindow) {
    // Only as measured: MPI's time over the measured slowdown, on one node.
    const MpiAgainstPlain* measured = s.op == Operation::allreduce   ? &m.allreduce_mpi
                                      : s.op == Operation::allgather ? &m.allgather_mpi
                                      : s.op == Operation::bcast     ? &m.bcast_window_mpi
                                                                     : nullptr;
    const double slowdown = measured && s.one_node ? measured->at(s.ranks, s.bytes) : 0;
    return slowdown > 0 ? predict(m, nullptr, Algorithm::Mpi, s) / slowdown : INFINITY;
  }
  if (a == Algorithm::PlainBinomial) {
    detail::Terms t(m, rates, s);
    return s.op == Operation::bcast ? detail::movement_cost(t, a) : INFINITY;
  }
  if (!rates) return INFINITY;
  detail::Terms t(m, rates, s, /*compressed=*/true);
  const double cost = is_movement(s.op) ? detail::movement_cost(t, a) : detail::reduction_cost(t, a);
  return cost + range_agreement(m, s);
}

std::vector<Algorithm> compressed_algorithms(Operation op) {
  switch (op) {
    case Operation::p2p: return {Algorithm::Direct};
    case Operation::bcast:
    case Operation::scatter:
    case Operation::gather: return {Algorithm::Binomial};
    case Operation::allgather: return {Algorithm::Ring, Algorithm::RecursiveDoubling};
    case Operation::reduce_scatter:
    case Operation::allreduce:
    case Operation::reduce:
      return {Algorithm::DocRing,      Algorithm::HomomorphicRing,
              Algorithm::FusedRing,    Algorithm::HomomorphicRecursiveDoubling,
              Algorithm::Rabenseifner, Algorithm::Hierarchical};
  }
  return {};
}

bool offers_shared_window(Operation op) {
  return op == Operation::allreduce || op == Operation::allgather || op == Operation::bcast;
}

std::vector<Algorithm> uncompressed_algorithms(Operation op) {
  std::vector<Algorithm> out;
  if (op == Operation::reduce_scatter) out.push_back(Algorithm::PlainRing);
  if (op == Operation::bcast) out.push_back(Algorithm::PlainBinomial);
  if (offers_shared_window(op)) out.push_back(Algorithm::SharedWindow);
  return out;
}

bool is_compressed(Algorithm a) {
  return a != Algorithm::Mpi && a != Algorithm::PlainRing && a != Algorithm::PlainBinomial &&
         a != Algorithm::SharedWindow;
}

double best_chunk_bytes(const MachineProfile& m, const CodecRates& rates, Algorithm a,
                        Scenario s) {
  s.chunk_bytes = kDefaultChunkBytes;
  double best = kDefaultChunkBytes, best_time = predict(m, &rates, a, s);
  // Another size must gain 1%: where the chunk hardly matters (or an algorithm does not
  // stream), the default stays.
  for (double chunk = 64 * 1024; chunk <= 16 * 1024 * 1024; chunk *= 2) {
    s.chunk_bytes = chunk;
    const double time = predict(m, &rates, a, s);
    if (time < 0.99 * best_time) {
      best_time = time;
      best = chunk;
    }
  }
  return best;
}

Choice choose(const MachineProfile& m, const CodecRates* rates, const Scenario& s,
              std::span<const Algorithm> candidates, double margin) {
  Choice plain;
  plain.algorithm = Algorithm::Mpi;
  plain.mpi_seconds = plain.predicted_seconds = predict(m, nullptr, Algorithm::Mpi, s);
  for (Algorithm a : uncompressed_algorithms(s.op)) {
    const double time = predict(m, nullptr, a, s);
    if (time < kUncompressedMargin * plain.predicted_seconds) {
      plain.algorithm = a;
      plain.predicted_seconds = time;
    }
  }
  if (!rates) return plain;
  Choice best = plain;
  best.predicted_seconds = INFINITY;
  for (Algorithm a : candidates) {
    if (!is_compressed(a)) continue;
    Scenario tuned = s;
    if (pipelined(m, s.op) && s.chunk_bytes <= 0)
      tuned.chunk_bytes = best_chunk_bytes(m, *rates, a, s);
    const double time = predict(m, rates, a, tuned);
    if (time * (1 + displace_margin(s.op, a)) < best.predicted_seconds) {
      best.algorithm = a;
      best.predicted_seconds = time;
      best.chunk_bytes = tuned.chunk_bytes != s.chunk_bytes ? tuned.chunk_bytes : 0;
    }
  }
  return std::isfinite(best.predicted_seconds) &&
                 best.predicted_seconds < margin * plain.predicted_seconds
             ? best
             : plain;
}

}  // namespace commpress::model
