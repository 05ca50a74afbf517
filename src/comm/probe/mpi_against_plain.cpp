#include "comm/probe/mpi_against_plain.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "comm/probe/stable_floor.hpp"
#include "comm/session/node_key.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::probe {

namespace {

// One call of the operation on n elements per block or message with the algorithm.
using Call = std::function<Result<Report>(Algorithm alg, size_t n)>;

// This rank's time of one call, after a barrier.
Result<double> timed_call(MPI_Comm comm, const Call& call, Algorithm alg, size_t n) {
  if (MPI_Barrier(comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Barrier failed"};
  const double t0 = MPI_Wtime();
  auto r = call(alg, n);
  if (!r.ok()) return r.status();
  return MPI_Wtime() - t0;
}

Result<model::MpiAgainstPlain> measure(MPI_Comm comm, double max_bytes,
                                       const AgainstPlainRounds& rounds_of, Algorithm plain,
                                       const Call& call) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  model::MpiAgainstPlain m;
  m.ranks = size;
  std::vector<double> sizes;
  for (double bytes : {64.0 * 1024, 1024.0 * 1024, 8.0 * 1024 * 1024})
    if (bytes <= max_bytes) sizes.push_back(bytes);
  // Without `middle`, a size between the smallest and the largest is left out.
  if (!rounds_of.middle && sizes.size() > 2) sizes.erase(sizes.begin() + 1, sizes.end() - 1);
  for (double bytes : sizes) {
    const size_t n = size_t(bytes) / sizeof(float);
    // Rounds run both, one after the other, so each gives a paired ratio; their median is
    // the slowdown (the first round warms up). Not the fastest round of each, as elsewhere
    // in the profile: what sets the two apart can be how often the ranks wait for a core
    // (a segmented MPI_Bcast wakes them once per segment), which the fastest round hides.
    // Measured with 4 ranks on 2 cores: MPI_Bcast's fastest rounds matched the tree's
    // (0.97x at 1 MiB) while the paired medians of two profiling runs had it 1.36x and
    // 1.42x slower.
    const int rounds = bytes < 1e6 ? rounds_of.small : bytes < 4e6 ? rounds_of.medium : rounds_of.large;
    std::vector<double> ratios;
    StableFloor lowest_two({2, std::max(2, rounds - 1), 0, rounds_of.agree});
    for (int k = 0; k < rounds; ++k) {
      double t[2];  // the slowest rank's times (the barrier before each call parts them)
      for (int i = 0; i < 2; ++i) {
        auto s = timed_call(comm, call, i == 0 ? Algorithm::Mpi : plain, n);
        if (!s.ok()) return s.status();
        t[i] = *s;
      }
      if (MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        return Status{ErrorCode::mpi, "profile: MPI_Allreduce failed"};
      if (rounds_of.calls) *rounds_of.calls += 2;
      if (k == 0 || !(t[1] > 0)) continue;
      ratios.push_back(t[0] / t[1]);
      lowest_two.add(ratios.back());
      // Every rank holds the same ratios, so all stop at the same round. Where the lowest
      // ratio is kept and has MPI's own as fast as the plain one, the answer is decided: more
      // rounds can only lower it, and Auto never runs the plain one in MPI's stead.
      if (rounds_of.agree >= 0 &&
          (lowest_two.done(0) || (rounds_of.lowest && lowest_two.fastest() <= 1)))
        break;
    }
    const size_t at = rounds_of.lowest ? 0 : ratios.size() / 2;
    std::nth_element(ratios.begin(), ratios.begin() + at, ratios.end());
    m.points.push_back({bytes, ratios.empty() ? 1.0 : ratios[at]});
  }
  return m;
}

Options lossless(Algorithm alg) {
  Options o;
  o.algorithm = alg;
  o.bound = ErrorBound::lossless();
  return o;
}

std::vector<float> walk(size_t n, int rank) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.001f * float(i) + float(rank));
  return v;
}

// Whether every rank of comm runs on one node (SharedWindow is measured only there).
Result<bool> one_node(MPI_Comm comm) {
  double keys[2] = {detail::node_key(), -detail::node_key()};
  if (MPI_Allreduce(MPI_IN_PLACE, keys, 2, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Allreduce failed"};
  return keys[0] == -keys[1];
}

Result<model::MpiAgainstPlain> against_shared_window(MPI_Comm comm, double max_bytes,
                                                     const AgainstPlainRounds& rounds,
                                                     const Call& call) {
  auto here = one_node(comm);
  if (!here.ok()) return here.status();
  if (!*here) return model::MpiAgainstPlain{};
  return measure(comm, max_bytes, rounds, Algorithm::SharedWindow, call);
}

}  // namespace

Result<model::MpiAgainstPlain> measure_allreduce_mpi(MPI_Comm comm, double max_bytes,
                                                     AgainstPlainRounds rounds) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<float> in, out;
  return against_shared_window(comm, max_bytes, rounds, [&](Algorithm alg, size_t n) {
    if (out.size() != n) in = walk(n, rank), out.assign(n, 0);
    return allreduce(in.data(), out.data(), n, Dtype::f32, Op::sum, comm, lossless(alg));
  });
}

Result<model::MpiAgainstPlain> measure_allgather_mpi(MPI_Comm comm, double max_bytes,
                                                     AgainstPlainRounds rounds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<float> in, out;
  return against_shared_window(comm, max_bytes, rounds, [&](Algorithm alg, size_t n) {
    if (in.size() != n) in = walk(n, rank), out.assign(n * size_t(size), 0);
    return allgather(in.data(), out.data(), n, Dtype::f32, comm, lossless(alg));
  });
}

Result<model::MpiAgainstPlain> measure_bcast_window_mpi(MPI_Comm comm, double max_bytes,
                                                        AgainstPlainRounds rounds) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<float> buf;
  return against_shared_window(comm, max_bytes, rounds, [&](Algorithm alg, size_t n) {
    if (buf.size() != n) buf = walk(n, rank);
    return bcast(buf.data(), n, Dtype::f32, 0, comm, lossless(alg));
  });
}

Result<model::MpiAgainstPlain> measure_reduce_scatter_mpi(MPI_Comm comm, double max_bytes,
                                                          AgainstPlainRounds rounds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<float> in, out;
  return measure(comm, max_bytes, rounds, Algorithm::PlainRing, [&](Algorithm alg, size_t n) {
    if (out.size() != n) in = walk(n * size_t(size), rank), out.assign(n, 0);
    return reduce_scatter_block(in.data(), out.data(), n, Dtype::f32, Op::sum, comm, lossless(alg));
  });
}

Result<model::MpiAgainstPlain> measure_bcast_mpi(MPI_Comm comm, double max_bytes,
                                                 AgainstPlainRounds rounds) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<float> buf;
  return measure(comm, max_bytes, rounds, Algorithm::PlainBinomial, [&](Algorithm alg, size_t n) {
    if (buf.size() != n) buf = walk(n, rank);
    return bcast(buf.data(), n, Dtype::f32, 0, comm, lossless(alg));
  });
}

}  // namespace commpress::comm::probe
