// bench_triangular: commpress_pdpotrf / commpress_pdtrsm next to ScaLAPACK's pdpotrf_ /
// pdtrsm_ on the same block-cyclic matrices in the same launch, in alternating rounds (one call
// of each per repeat), and (one rank, --serial) LAPACK's dpotrf on the whole matrix with the
// node's BLAS threads. Prints one JSON line per measurement: op, routine, n, nb, grid, layers,
// codec, best and median seconds of the repeats, GFLOP/s, the median of the ranks' largest CPU
// time, the load average and, for commpress's routines, the bytes the call moved between
// processes (commpress_triangular_last_bytes, summed over the grid) and the median over the
// rounds of ScaLAPACK's time over commpress's.
//   mpirun -np P bench_triangular --n 4096 [--nb 64] [--repeats 3] [--ops potrf,trsm]
//                                 [--layers 1] [--codec none] [--bound 1e-8] [--serial]
//                                 [--scalapack-only | --commpress-only]
// --scalapack-only runs ScaLAPACK's routines alone (for an outside count of their traffic,
// e.g. Open MPI's pml_monitoring), --commpress-only commpress's (for profiling it alone).
// --bound: the absolute bound on every travelling element for a lossy codec; commpress's
// lines then carry it, the bound on the residual the call reports (result_bound) and the
// codec's ratio on the factor (panel_codec_ratio: what the model is given).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <span>
#include <string>
#include <vector>

#include "comm/select.hpp"
#include "comm/transport/buffer.hpp"
#include "comm/transport/wire.hpp"
#include "commpress/scalapack.h"
#include "core/checksum.hpp"
#include "model/triangular_model.hpp"
#include "linalg/layout/blacs.hpp"
#include "linalg/layout/matrix_fill.hpp"
#include "linalg/triangular/triangular_options.hpp"

extern "C" {
void Cblacs_pinfo(int* rank, int* size);
void pdpotrf_(const char*, const int*, double*, const int*, const int*, const int*, int*);
void pdtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
             const double*, const double*, const int*, const int*, const int*, double*,
             const int*, const int*, const int*);
void dpotrf_(const char*, const int*, double*, const int*, int*);
void openblas_set_num_threads(int);
}

namespace {

struct Args {
  int n = 4096, nb = 64, repeats = 3, layers = 1;
  std::string ops = "potrf,trsm", codec = "none";
  double bound = 1e-8;
  bool serial = false, scalapack_only = false, commpress_only = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (k == "--n") a.n = std::atoi(v), ++i;
    else if (k == "--nb") a.nb = std::atoi(v), ++i;
    else if (k == "--repeats") a.repeats = std::atoi(v), ++i;
    else if (k == "--layers") a.layers = std::atoi(v), ++i;
    else if (k == "--ops") a.ops = v, ++i;
    else if (k == "--codec") a.codec = v, ++i;
    else if (k == "--serial") a.serial = true;
    else if (k == "--bound") a.bound = std::atof(v), ++i;
    else if (k == "--scalapack-only") a.scalapack_only = true;
    else if (k == "--commpress-only") a.commpress_only = true;
    else {
      std::fprintf(stderr, "bench_triangular: unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// This process's CPU time: on a loaded machine the part of a call's time that is its own work
// (and its own busy waiting), not the time other processes held the cores.
double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Symmetric and diagonally dominant: positive definite, and well conditioned for the solve.
double spd(int64_t i, int64_t j, int n) {
  const double v = commpress::linalg::detail::matrix_value(7, std::min(i, j), std::max(i, j));
  return i == j ? n + 1.0 + v : v;
}

struct Timing {
  double best = 1e300, median = 0;
  double cpu = 0;  // the median over the repeats of the ranks' largest CPU time
};

// Each measured call leaves its CPU time here (F and G below return the wall time).
double last_cpu = 0;

Timing summary(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// Each repeat runs ScaLAPACK's call then commpress's (the same round sees the same load), each
// after a barrier; a call's time is its slowest rank's. Returns both timings and the median of
// the rounds' ratios (ScaLAPACK's time over commpress's).
struct Rounds {
  Timing theirs, ours;
  double ratio = 0;
};

template <class F, class G>
Rounds alternate(int repeats, F&& theirs, G&& ours) {
  std::vector<double> t, cpu;  // theirs, ours, theirs, ours...
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    t.push_back(theirs());
    cpu.push_back(last_cpu);
    MPI_Barrier(MPI_COMM_WORLD);
    t.push_back(ours());
    cpu.push_back(last_cpu);
  }
  MPI_Allreduce(MPI_IN_PLACE, t.data(), int(t.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, cpu.data(), int(cpu.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::vector<double> a, b, ca, cb, ratio;
  for (int r = 0; r < repeats; ++r) {
    a.push_back(t[size_t(2 * r)]);
    b.push_back(t[size_t(2 * r + 1)]);
    ca.push_back(cpu[size_t(2 * r)]);
    cb.push_back(cpu[size_t(2 * r + 1)]);
    ratio.push_back(a.back() / b.back());
  }
  Rounds out{summary(a), summary(b), summary(ratio).median};
  out.theirs.cpu = summary(ca).median;
  out.ours.cpu = summary(cb).median;
  return out;
}

// A hash of this call's result over the grid (each rank's local array by the frames'
// checksum, mixed with the rank and XORed over the ranks): two builds whose results are
// bit-identical print the same value, so a change meant to keep them can be checked on the
// measured runs themselves.
unsigned long long result_hash(const std::vector<double>& local) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::span<const std::byte> tag(reinterpret_cast<const std::byte*>(&rank), sizeof rank);
  unsigned long long h = commpress::core::checksum64(tag, std::as_bytes(std::span(local)));
  MPI_Allreduce(MPI_IN_PLACE, &h, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, MPI_COMM_WORLD);
  return h;
}

// The 1-minute load average (other processes' included), for the record beside the times.
double load_average() {
  double load = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

// The codec's ratio on the factor a compressed call produced (its strictly lower part, what
// the panels carry), each rank's part encoded at the bound, the sizes summed over the ranks:
// the ratio the model is given for the panels of the same call.
double panels_ratio(const Args& a, const std::vector<double>& local, int lld, int mp, int nq,
                    int pr, int pc, int myrow, int mycol) {
  std::vector<double> lower;
  for (int lj = 0; lj < nq; ++lj)
    for (int li = 0; li < mp; ++li) {
      const int64_t i = ((li / a.nb) * pr + myrow) * int64_t(a.nb) + li % a.nb;
      const int64_t j = ((lj / a.nb) * pc + mycol) * int64_t(a.nb) + lj % a.nb;
      if (i > j) lower.push_back(local[size_t(li) + size_t(lj) * lld]);
    }
  double sizes[2] = {double(lower.size() * sizeof(double)), 0};
  auto wire = commpress::comm::detail::Wire::resolved(a.codec, commpress::codec::Dtype::f64, a.bound);
  commpress::comm::detail::Buffer frames;
  if (wire.ok() && wire->encode_block(lower.data(), lower.size(), frames).ok())
    sizes[1] = double(frames.size());
  MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sizes[1] > 0 ? sizes[0] / sizes[1] : 1;
}

// The model's prediction for one measured call on the profile in force (COMMPRESS_PROFILE):
// commpress's with look-ahead (and its codec: the profile's rates, the ratio panels_ratio
// measured), ScaLAPACK's as the same steps without it.
double predicted(const Args& a, const char* op, bool ours, int pr, int pc, double ratio = 1) {
  const commpress::model::MachineProfile& prof = commpress::comm::detail::machine_profile();
  commpress::model::TriangularScenario s;
  s.n = a.n;
  s.nrhs = std::string(op) == "trsm" ? a.n : 0;
  s.nb = a.nb;
  s.grid = {pr, pc, 1};
  s.link = prof.network;
  s.flops = commpress::model::gemm_flop_rate(prof, commpress::codec::Dtype::f64);
  s.overlap = ours;
  if (ours && a.codec != "none") {
    s.codec = commpress::model::gemm_codec(prof.rates(a.codec, commpress::codec::Dtype::f64));
    s.codec.ratio = ratio;
  }
  if (auto o = commpress::linalg::detail::triangular_options(); o.ok()) s.update_width = o->update_width;
  if (ours && a.layers > 1) {
    s.grid = std::string(op) == "trsm" ? commpress::model::plan_trsm(s, a.layers).grid
                                       : commpress::model::plan_cholesky(s, a.layers).grid;
    return std::string(op) == "trsm" ? commpress::model::trsm_25d_cost(s).seconds
                                     : commpress::model::cholesky_25d_cost(s).seconds;
  }
  return std::string(op) == "trsm" ? commpress::model::trsm_2d_cost(s).seconds
                                   : commpress::model::cholesky_2d_cost(s).seconds;
}

void print(const Args& a, const char* op, const char* routine, const std::string& grid,
           double flops, const Timing& t, double model_s, long long bytes = -1, double ratio = 0,
           unsigned long long hash = 0, double codec_ratio = 0) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::printf("{\"op\":\"%s\",\"routine\":\"%s\",\"n\":%d,\"nb\":%d,\"grid\":\"%s\",\"layers\":%d,"
              "\"codec\":\"%s\",\"best_s\":%.6f,\"median_s\":%.6f,\"gflops\":%.3f,\"model_s\":%.6f,"
              "\"cpu_s\":%.6f,\"load\":%.2f",
              op, routine, a.n, a.nb, grid.c_str(), a.layers, a.codec.c_str(), t.best, t.median,
              flops / t.best / 1e9, model_s, t.cpu, load_average());
  if (bytes >= 0) std::printf(",\"bytes\":%lld", bytes);
  if (ratio > 0) std::printf(",\"ratio_median\":%.4f", ratio);
  if (hash != 0) std::printf(",\"result_hash\":\"%016llx\"", hash);
  if (codec_ratio > 0) std::printf(",\"panel_codec_ratio\":%.3f", codec_ratio);
  if (hash != 0 && commpress_triangular_last_bound() > 0)
    std::printf(",\"abs_bound\":%g,\"result_bound\":%g", a.bound,
                commpress_triangular_last_bound());
  std::printf("}\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Args a = parse(argc, argv);
  int rank = 0, size = 1;
  Cblacs_pinfo(&rank, &size);
  const double potrf_flops = double(a.n) * a.n * a.n / 3, trsm_flops = double(a.n) * a.n * a.n;
  if (a.serial) {
    if (rank == 0) {
      openblas_set_num_threads(2);
      std::vector<double> m(size_t(a.n) * a.n);
      std::vector<double> times;
      for (int r = 0; r < a.repeats; ++r) {
        for (int j = 0; j < a.n; ++j)
          for (int i = 0; i < a.n; ++i) m[size_t(i) + size_t(j) * a.n] = spd(i, j, a.n);
        int info = 0;
        const double t0 = now();
        dpotrf_("L", &a.n, m.data(), &a.n, &info);
        times.push_back(now() - t0);
      }
      std::sort(times.begin(), times.end());
      std::printf("{\"op\":\"potrf\",\"routine\":\"dpotrf (1 rank, 2 threads)\",\"n\":%d,\"best_s\":%.6f,"
                  "\"median_s\":%.6f,\"gflops\":%.3f}\n",
                  a.n, times.front(), times[times.size() / 2], potrf_flops / times.front() / 1e9);
    }
    MPI_Finalize();
    return 0;
  }
  int pr = 1;
  for (int r = 1; r * r <= size; ++r)
    if (size % r == 0) pr = r;
  const int pc = size / pr;
  int ctx = -1, myrow = -1, mycol = -1, nprow = 0, npcol = 0;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", pr, pc);
  Cblacs_gridinfo(ctx, &nprow, &npcol, &myrow, &mycol);
  const int zero = 0, one = 1;
  const int mp = numroc_(&a.n, &a.nb, &myrow, &zero, &pr), nq = numroc_(&a.n, &a.nb, &mycol, &zero, &pc);
  const int lld = std::max(1, mp);
  int desc[9], info = 0;
  descinit_(desc, &a.n, &a.n, &a.nb, &a.nb, &zero, &zero, &ctx, &lld, &info);
  std::vector<double> base(size_t(lld) * std::max(1, nq)), work = base, factor;
  for (int lj = 0; lj < nq; ++lj)
    for (int li = 0; li < mp; ++li) {
      const int64_t i = ((li / a.nb) * pr + myrow) * int64_t(a.nb) + li % a.nb;
      const int64_t j = ((lj / a.nb) * pc + mycol) * int64_t(a.nb) + lj % a.nb;
      base[size_t(li) + size_t(lj) * lld] = spd(i, j, a.n);
    }
  const std::string grid = std::to_string(pr) + "x" + std::to_string(pc);
  if (commpress_triangular_set_options(a.codec.c_str(), a.codec == "none" ? 0 : a.bound) != 0 ||
      commpress_triangular_set_layers(a.layers) != 0) {
    char msg[512];
    commpress_gemm_last_error(msg, sizeof msg);
    if (rank == 0) std::fprintf(stderr, "bench_triangular: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const bool potrf = a.ops.find("potrf") != std::string::npos;
  const bool trsm = a.ops.find("trsm") != std::string::npos;
  const double alpha = 1;
  auto factor_once = [&](bool ours) {
    work = base;
    const double t0 = now(), c0 = cpu_now();
    if (ours) commpress_pdpotrf("L", &a.n, work.data(), &one, &one, desc, &info);
    else pdpotrf_("L", &a.n, work.data(), &one, &one, desc, &info);
    last_cpu = cpu_now() - c0;
    return now() - t0;
  };
  auto solve_once = [&](bool ours) {
    work = base;  // B = A: any dense right-hand side
    const double t0 = now(), c0 = cpu_now();
    if (ours)
      commpress_pdtrsm("L", "L", "N", "N", &a.n, &a.n, &alpha, factor.data(), &one, &one, desc,
                       work.data(), &one, &one, desc);
    else
      pdtrsm_("L", "L", "N", "N", &a.n, &a.n, &alpha, factor.data(), &one, &one, desc,
              work.data(), &one, &one, desc);
    last_cpu = cpu_now() - c0;
    return now() - t0;
  };
  const bool coded = a.codec != "none";
  auto panel_ratio = [&] { return panels_ratio(a, work, lld, mp, nq, pr, pc, myrow, mycol); };
  // Both routines in alternating rounds, or ScaLAPACK's alone.
  auto measure = [&](const char* op, const char* theirs, const char* ours, double flops,
                     auto&& once) {
    if (a.scalapack_only) {
      Rounds r;
      r.theirs = alternate(a.repeats, [&] { return once(false); }, [] { return 1.0; }).theirs;
      print(a, op, theirs, grid, flops, r.theirs, predicted(a, op, false, pr, pc));
      return;
    }
    if (a.commpress_only) {
      const Rounds r = alternate(a.repeats, [] { return 1.0; }, [&] { return once(true); });
      const long long bytes = commpress_triangular_last_bytes();
      const double ratio = coded && op == std::string("potrf") ? panel_ratio() : 1;
      print(a, op, ours, grid, flops, r.ours, predicted(a, op, true, pr, pc, ratio), bytes, 0,
            result_hash(work), coded ? ratio : 0);
      return;
    }
    const Rounds r = alternate(a.repeats, [&] { return once(false); }, [&] { return once(true); });
    const unsigned long long hash = result_hash(work);  // commpress's call ran last
    const long long bytes = commpress_triangular_last_bytes();
    const double ratio = coded && op == std::string("potrf") ? panel_ratio() : 1;
    print(a, op, theirs, grid, flops, r.theirs, predicted(a, op, false, pr, pc));
    print(a, op, ours, grid, flops, r.ours, predicted(a, op, true, pr, pc, ratio), bytes, r.ratio,
          hash, coded ? ratio : 0);
  };
  if (potrf)
    measure("potrf", "pdpotrf_ (ScaLAPACK)", "commpress_pdpotrf", potrf_flops, factor_once);
  if (trsm) {
    factor_once(false);
    factor = work;
    measure("trsm", "pdtrsm_ (ScaLAPACK)", "commpress_pdtrsm", trsm_flops, solve_once);
  }
  Cblacs_gridexit(ctx);
  MPI_Finalize();
  return 0;
}
