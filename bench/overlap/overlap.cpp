// How much of a compressed allreduce a computation between iallreduce and wait hides, as
// the OSU nonblocking benchmarks measure it (osu_iallreduce):
//   t_pure     iallreduce then wait at once (the operation alone)
//   t_cpu      the computation alone, sized to take about t_pure
//   t_overall  iallreduce, the computation, wait
//   overlap    1 - (t_overall - t_cpu) / t_pure, clamped to [0, 1]
//   op_cpu     CPU seconds this process spent during iallreduce + wait (its progress thread's
//              codec work and MPI calls; the caller sleeps in wait): what a computation that
//              keeps every core busy cannot hide, so overlap <= 1 - op_cpu / t_pure where a
//              rank has a core of its own
//   done_in_compute  overlapped runs in which rank 0's operation had finished by the time
//              its computation did
// Each time is the slowest rank's, the median over the iterations. Data: a smooth field of
// floats per rank (what compresses as a simulation's fields do). Needs MPI_THREAD_MULTIPLE
// (commpress's progress thread).
//
//   bench_overlap [--mib M (16)] [--iters K (5)] [--codec szp] [--bound rel:1e-4 | abs:X]
//                 [--algorithm auto]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "commpress/nonblocking.hpp"

namespace cc = commpress::comm;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double slowest(double t) {
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Arithmetic on registers only (no memory traffic, no MPI): `steps` dependent updates.
volatile double g_sink = 0;
void compute(long steps) {
  double x = 1.0;
  for (long i = 0; i < steps; ++i) x = x * 0.999999 + 1e-7;
  g_sink = x;
}

// Steps that take about `seconds` on this rank (the same count on every rank: the largest).
long steps_for(double seconds) {
  long steps = 1 << 20;
  double t = 0;
  while ((t = [&] { double t0 = now(); compute(steps); return now() - t0; }()) < 0.05) steps *= 2;
  long want = long(double(steps) * seconds / t);
  MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return want;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double mib = 16;
  int iters = 5;
  cc::Options opts{"szp", commpress::codec::ErrorBound::relative(1e-4)};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--mib") mib = std::atof(v.c_str());
    else if (a == "--iters") iters = std::max(1, std::atoi(v.c_str()));
    else if (a == "--codec") opts.codec = v;
    else if (a == "--bound" && v.rfind("rel:", 0) == 0)
      opts.bound = commpress::codec::ErrorBound::relative(std::atof(v.c_str() + 4));
    else if (a == "--bound" && v.rfind("abs:", 0) == 0)
      opts.bound = commpress::codec::ErrorBound::absolute(std::atof(v.c_str() + 4));
    else if (a == "--algorithm") {
      auto alg = cc::parse_algorithm(v);
      if (alg.ok()) opts.algorithm = *alg;
    }
  }
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::fprintf(stderr, "bench_overlap: MPI gave no MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 1;
  }
  const size_t n = size_t(mib * 1024 * 1024 / sizeof(float));
  std::vector<float> in(n), out(n);
  for (size_t i = 0; i < n; ++i)
    in[i] = float(100 * std::sin(1e-4 * double(i) + rank) + 0.01 * double(i % 97));

  std::vector<double> op_cpu;
  int done_by_compute_end = 0;  // overlapped runs whose operation had finished when the loop did
  auto run = [&](bool with_compute, long steps, cc::Report* report) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double c0 = cpu_now();
    const double t0 = now();
    auto req = cc::iallreduce(in.data(), out.data(), n, cc::Dtype::f32, cc::Op::sum,
                              MPI_COMM_WORLD, opts);
    if (with_compute) {
      compute(steps);
      done_by_compute_end += req.test() ? 1 : 0;
    }
    auto r = req.wait();
    const double t = now() - t0;
    if (!with_compute) op_cpu.push_back(slowest(cpu_now() - c0));
    if (!r.ok()) {
      std::fprintf(stderr, "bench_overlap[%d]: %s\n", rank, r.status().to_string().c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (report) *report = *r;
    return slowest(t);
  };
  cc::Report report;
  run(false, 0, &report);  // warm-up: buffers, the progress thread, Auto's choice
  std::vector<double> pure, cpu, overall, mpi;
  op_cpu.clear();
  for (int k = 0; k < iters; ++k) pure.push_back(run(false, 0, nullptr));
  const double t_pure = median(pure), t_op_cpu = median(op_cpu);
  const long steps = steps_for(t_pure);
  for (int k = 0; k < iters; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    compute(steps);
    cpu.push_back(slowest(now() - t0));
  }
  for (int k = 0; k < iters; ++k) overall.push_back(run(true, steps, nullptr));
  for (int k = 0; k < iters; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    MPI_Allreduce(in.data(), out.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    mpi.push_back(slowest(now() - t0));
  }
  const double t_cpu = median(cpu), t_overall = median(overall);
  const double overlap = std::clamp(1 - (t_overall - t_cpu) / t_pure, 0.0, 1.0);
  const char* progress = std::getenv("COMMPRESS_PROGRESS");  // commpress's default: thread
  if (!progress || !*progress) progress = "thread";
  if (rank == 0)
    std::printf("ranks=%d progress=%s MiB=%g algorithm=%s codec=%s ratio=%.2f t_mpi=%.4f t_pure=%.4f "
                "t_cpu=%.4f t_overall=%.4f op_cpu=%.4f done_in_compute=%d/%d overlap=%.1f%%\n",
                size, progress, mib, cc::algorithm_name(report.algorithm), report.codec.c_str(),
                report.ratio(), median(mpi), t_pure, t_cpu, t_overall, t_op_cpu, done_by_compute_end, iters, 100 * overlap);
  MPI_Finalize();
  return 0;
}
