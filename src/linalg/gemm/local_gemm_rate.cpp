#include "linalg/gemm/local_gemm_rate.hpp"

#include <random>
#include <vector>

#include "comm/probe/quick_probe.hpp"
#include "comm/probe/timing.hpp"
#include "comm/session/private_comm.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

template <class T>
double local_gemm_rate(MPI_Comm comm, int64_t n, int reps) {
  std::vector<T> a(size_t(n * n)), b(size_t(n * n)), c(size_t(n * n));
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(u(gen)), b[i] = T(u(gen));
  set_blas_threads_for(comm);
  auto run = [&] {
    local_gemm(Trans::N, Trans::N, n, n, n, T(1), a.data(), n, b.data(), n, T(0), c.data(), n);
    return Status{};
  };
  Status st;
  (void)run();  // warm-up: the timed runs below report any failure
  const double best = comm::probe::timed(run, reps, st);
  return best > 0 ? 2.0 * double(n) * double(n) * double(n) / best : 0;
}

template double local_gemm_rate<float>(MPI_Comm, int64_t, int);
template double local_gemm_rate<double>(MPI_Comm, int64_t, int);

namespace {

// The probe's extension: both rates, the slowest rank's.
Status probe_blas_rates(MPI_Comm comm, model::MachineProfile& m) {
  double flops[2] = {local_gemm_rate<double>(comm, 384, 1), local_gemm_rate<float>(comm, 384, 1)};
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, flops, 2, MPI_DOUBLE, MPI_MIN, comm));
  m.gemm_flops_f64 = flops[0];
  m.gemm_flops_f32 = flops[1];
  return {};
}

[[maybe_unused]] const bool registered = (comm::probe::add_probe_extension(&probe_blas_rates), true);

}  // namespace

}  // namespace commpress::linalg::detail
