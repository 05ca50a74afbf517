#include "comm/profile_mpi_against_ring.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

// The slowest rank's time of one call, after a barrier.
Result<double> timed_call(MPI_Comm comm, const std::vector<float>& in, std::vector<float>& out,
                          Algorithm alg) {
  Options o;
  o.algorithm = alg;
  o.bound = ErrorBound::lossless();
  if (MPI_Barrier(comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Barrier failed"};
  const double t0 = MPI_Wtime();
  auto r = reduce_scatter_block(in.data(), out.data(), out.size(), Dtype::f32, Op::sum, comm, o);
  if (!r.ok()) return r.status();
  double t = MPI_Wtime() - t0;
  if (MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    return Status{ErrorCode::mpi, "profile: MPI_Allreduce failed"};
  return t;
}

}  // namespace

Result<model::MpiAgainstRing> measure_reduce_scatter_mpi(MPI_Comm comm, double max_block_bytes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  model::MpiAgainstRing m;
  m.ranks = size;
  for (double block : {64.0 * 1024, 1024.0 * 1024, 8.0 * 1024 * 1024}) {
    if (block > max_block_bytes) break;
    const size_t n = size_t(block) / sizeof(float);
    std::vector<float> in(n * size_t(size)), out(n);
    for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.001f * float(i) + float(rank));
    // The fastest of several rounds of each (a preemption only ever adds), alternating so
    // that both see the same machine; the first round of each warms up.
    const int rounds = block < 1e6 ? 12 : 4;
    double best[2] = {INFINITY, INFINITY};
    for (int k = 0; k < rounds; ++k)
      for (int i = 0; i < 2; ++i) {
        auto t = timed_call(comm, in, out, i == 0 ? Algorithm::Mpi : Algorithm::PlainRing);
        if (!t.ok()) return t.status();
        if (k > 0) best[i] = std::min(best[i], *t);
      }
    m.points.push_back({block, best[0] / best[1]});
  }
  return m;
}

}  // namespace commpress::comm
