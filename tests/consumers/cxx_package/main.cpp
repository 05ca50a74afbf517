// A compressed allreduce (szp, REL 1e-4) checked against MPI_Allreduce within the reported
// bound; exits non-zero on any rank's failure.
#include <commpress/comm.hpp>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  namespace cm = commpress::comm;
  std::vector<double> send(20000), got(send.size()), want(send.size());
  for (size_t i = 0; i < send.size(); ++i) send[i] = std::cos(0.01 * double(i) + rank);
  cm::Options opts{"szp", commpress::codec::ErrorBound::relative(1e-4)};
  auto r = cm::allreduce(send.data(), got.data(), send.size(), cm::Dtype::f64, cm::Op::sum,
                         MPI_COMM_WORLD, opts);
  MPI_Allreduce(send.data(), want.data(), int(send.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int bad = !r.ok();
  // Both sums carry their own rounding: allow the reported bound plus MPI's.
  for (size_t i = 0; !bad && i < send.size(); ++i)
    bad = std::fabs(got[i] - want[i]) > r->guaranteed_abs_bound + 1e-12;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("cxx_package: allreduce %s, %s\n", bad ? "FAILED" : "ok",
                r.ok() ? cm::algorithm_name(r->algorithm) : r.status().to_string().c_str());
  MPI_Finalize();
  return bad;
}
