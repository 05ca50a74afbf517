// Dispatch to each algorithm's cost model (its row of the algorithm table), and the choice
// Algorithm::Auto makes from them.
#include <algorithm>
#include <cmath>

#include "model/cost_terms.hpp"

namespace commpress::model {

namespace {

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

// Every collective commpress runs starts by agreeing its arguments across the ranks (and a
// REL bound's range, Auto's sampled ratios, the node keys: 42 int64, both ends of 13 fields,
// the verdict and 14 minima: begin_collective in src/comm/session/collective.cpp, whose fields
// this count must follow) in one small allreduce, as MPI runs it on these ranks; a
// compressed one also ends by agreeing its outcome (every rank fails together or none does),
// one more. MPI's own operation called directly makes neither; under Auto it runs after the
// argument agreement (choose()).
constexpr double kArgumentBytes = 42 * 8;
constexpr double kVerdictBytes = 16;  // two int64: the first failed rank and the worst code
double agreement(const MachineProfile& m, const Scenario& s, double bytes) {
  if (s.op == Operation::p2p || s.ranks <= 1) return 0;
  Scenario small = s;
  small.op = Operation::allreduce;
  small.bytes = bytes;
  return detail::mpi_reduction_cost(detail::Terms(m, nullptr, small));
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

namespace detail {

// Only as measured: MPI's time over the measured slowdown, on one node.
double shared_window_cost(const Terms& t) {
  const Scenario& s = t.scenario();
  const MachineProfile& m = t.machine();
  const MpiAgainstPlain* measured = mpi_against(m, s.op, Algorithm::SharedWindow);
  const double slowdown = measured && s.one_node ? measured->at(s.ranks, s.bytes) : 0;
  return slowdown > 0 ? mpi_cost(t) / slowdown : INFINITY;
}

Cost cost_of(Algorithm a) {
  switch (a) {
#define COMMPRESS_COST_OF(id, value, name, c_name, literature, ops, compressed, homomorphic, \
                          cost, runner)                                                     \
  case Algorithm::id: return &cost;
    COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_COST_OF)
#undef COMMPRESS_COST_OF
    case Algorithm::Auto: break;
  }
  return nullptr;
}

}  // namespace detail

double predict(const MachineProfile& m, const CodecRates* rates, Algorithm a, const Scenario& s) {
  const AlgorithmInfo* info = algorithm_info(a);
  if (!info || !info->serves(s.op)) return INFINITY;
  const detail::Cost cost = detail::cost_of(a);
  if (a == Algorithm::Mpi) return cost(detail::Terms(m, rates, s));
  const double arguments = agreement(m, s, kArgumentBytes);
  if (!is_compressed(a)) return arguments + cost(detail::Terms(m, rates, s));
  if (!rates) return INFINITY;
  return arguments + cost(detail::Terms(m, rates, s, /*compressed=*/true)) +
         agreement(m, s, kVerdictBytes);
}

std::vector<Algorithm> compressed_algorithms(Operation op) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& info : kAlgorithms)
    if (info.compressed && info.serves(op)) out.push_back(info.id);
  return out;
}

bool offers_shared_window(Operation op) {
  return algorithm_info(Algorithm::SharedWindow)->serves(op);
}

std::vector<Algorithm> uncompressed_algorithms(Operation op) {
  std::vector<Algorithm> out;
  for (const AlgorithmInfo& info : kAlgorithms)
    if (!info.compressed && info.id != Algorithm::Mpi && info.serves(op)) out.push_back(info.id);
  return out;
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
  plain.mpi_seconds = predict(m, nullptr, Algorithm::Mpi, s);
  plain.predicted_seconds = plain.mpi_seconds + agreement(m, s, kArgumentBytes);
  for (Algorithm a : uncompressed_algorithms(s.op)) {
    // Only where the profile timed MPI's own against it at this rank count: the model of
    // MPI's own follows Open MPI's table, and a plain algorithm the model merely prices
    // lower has not shown that it beats the MPI library in use.
    const MpiAgainstPlain* measured = mpi_against(m, s.op, a);
    if (!measured || measured->at(s.ranks, s.bytes) <= 0) continue;
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
