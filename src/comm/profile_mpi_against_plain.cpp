#include "comm/profile_mpi_against_plain.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

// One call of the operation on n elements per block or message with the algorithm.
using Call = std::function<Result<Report>(Algorithm alg, size_t n)>;

// The slowest rank's time of one call, after a barrier.
Result<double> timed_call(MPI_Comm comm, const Call& call, Algorithm alg, size_t n) {
  if (MPI_Barrier(comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Barrier failed"};
  const double t0 = MPI_Wtime();
  auto r = call(alg, n);
  if (!r.ok()) return r.status();
  double t = MPI_Wtime() - t0;
  if (MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Allreduce failed"};
  return t;
}

Result<model::MpiAgainstPlain> measure(MPI_Comm comm, double max_bytes, Algorithm plain,
                                       const Call& call) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  model::MpiAgainstPlain m;
  m.ranks = size;
  for (double bytes : {64.0 * 1024, 1024.0 * 1024, 8.0 * 1024 * 1024}) {
    if (bytes > max_bytes) break;
    const size_t n = size_t(bytes) / sizeof(float);
    // The fastest of several rounds of each (a preemption only ever adds), alternating so
    // that both see the same machine; the first round of each warms up.
    const int rounds = bytes < 1e6 ? 12 : 4;
    double best[2] = {INFINITY, INFINITY};
    for (int k = 0; k < rounds; ++k)
      for (int i = 0; i < 2; ++i) {
        auto t = timed_call(comm, call, i == 0 ? Algorithm::Mpi : plain, n);
        if (!t.ok()) return t.status();
        if (k > 0) best[i] = std::min(best[i], *t);
      }
    m.points.push_back({bytes, best[0] / best[1]});
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

}  // namespace

Result<model::MpiAgainstPlain> measure_reduce_scatter_mpi(MPI_Comm comm, double max_bytes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<float> in, out;
  return measure(comm, max_bytes, Algorithm::PlainRing, [&](Algorithm alg, size_t n) {
    if (out.size() != n) in = walk(n * size_t(size), rank), out.assign(n, 0);
    return reduce_scatter_block(in.data(), out.data(), n, Dtype::f32, Op::sum, comm, lossless(alg));
  });
}

Result<model::MpiAgainstPlain> measure_bcast_mpi(MPI_Comm comm, double max_bytes) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<float> buf;
  return measure(comm, max_bytes, Algorithm::PlainBinomial, [&](Algorithm alg, size_t n) {
    if (buf.size() != n) buf = walk(n, rank);
    return bcast(buf.data(), n, Dtype::f32, 0, comm, lossless(alg));
  });
}

}  // namespace commpress::comm
