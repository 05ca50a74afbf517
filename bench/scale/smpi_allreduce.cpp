// The SMPI driver of the large simulated allreduces (docs/smpi.md): every rank's
// buffers of 64 MiB at 1024 ranks do not fit in one machine, so beyond a private head the send
// and receive buffers are SMPI shared memory (SMPI_PARTIAL_SHARED_MALLOC): all ranks alias the
// same pages there, their input is the same smooth field (so the codec meets realistic data)
// and their result there is meaningless. The private head is each rank's own: its result is
// checked against MPI's uncompressed allreduce of the same head, within the bound the run
// reports, and a violation fails the program. Without --shared every byte is private and
// checked. --periodic makes every block of the rings' layout (count / ranks values) of the
// shared part the same values, so that the library under SMPI does each codec step there once
// and charges the others the time it took (docs/smpi.md, "Codec work on the shared payload").
// One JSON line per algorithm on rank 0; times are the slowest rank's, in simulated seconds.
#include <mpi.h>
#include <smpi/smpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "commpress/comm.hpp"

namespace {

struct Args {
  size_t count = 1 << 20;          // f64 values per rank
  std::vector<std::string> algorithms{"auto"};
  double bound_rel = 1e-4;
  int repeat = 1;
  size_t private_values = 0;       // with --shared: the checked head (0 = 256 Ki values)
  bool shared = false;
  bool periodic = false;           // with --shared: the field repeats every count / ranks values
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc && k != "--shared" && k != "--periodic") return false;
    if (k == "--count") a.count = std::strtoull(argv[++i], nullptr, 10);
    else if (k == "--bound-rel") a.bound_rel = std::strtod(argv[++i], nullptr);
    else if (k == "--repeat") a.repeat = std::atoi(argv[++i]);
    else if (k == "--private-values") a.private_values = std::strtoull(argv[++i], nullptr, 10);
    else if (k == "--shared") a.shared = true;
    else if (k == "--periodic") a.periodic = true;
    else if (k == "--algorithm") {
      a.algorithms.clear();
      std::string list = argv[++i];
      for (size_t b = 0, e; b <= list.size(); b = e + 1) {
        e = std::min(list.find(',', b), list.size());
        a.algorithms.push_back(list.substr(b, e - b));
      }
    } else return false;
  }
  return a.count > 0 && a.repeat > 0;
}

// Shared beyond `head` bytes, rounded up to SMPI's shared block (1 MiB by default).
double* allocate(size_t bytes, size_t head, bool shared) {
  if (!shared || bytes <= head) return static_cast<double*>(std::malloc(bytes));
  size_t offsets[2] = {head, bytes};
  return static_cast<double*>(SMPI_PARTIAL_SHARED_MALLOC(bytes, offsets, 1));
}
void release(double* p, bool shared) {
  if (shared) SMPI_SHARED_FREE(p);
  else std::free(p);
}

// A smooth field, plus a rank's own ripple where its memory is private. With a period the
// field starts again every period values: with the period of the rings' blocks every block
// of the shared part holds the same values, so each ring step's codec work there is one that
// another rank has already done, and under SMPI the library does it once
// (comm/transport/smpi_work_reuse.hpp).
void fill(double* x, size_t begin, size_t end, size_t head, int rank, size_t period) {
  for (size_t i = begin; i < end; ++i) {
    const double t = double(period ? i % period : i);
    double v = 10.0 * std::sin(t * 1e-4) + std::cos(t * 3e-3);
    if (i < head) v += 0.01 * rank * std::sin(double(i) * 1e-2);
    x[i] = v;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Args a;
  if (!parse(argc, argv, a)) {
    if (rank == 0)
      std::fprintf(stderr, "usage: smpi_allreduce --count N --algorithm a,b --bound-rel R "
                           "[--repeat K] [--shared [--private-values M] [--periodic]]\n");
    MPI_Finalize();
    return 2;
  }
  const size_t block = 1 << 20;
  size_t head = a.shared ? (a.private_values ? a.private_values : 256 * 1024) : a.count;
  head = std::min(head, a.count);
  const size_t head_bytes = a.shared ? (head * sizeof(double) + block - 1) / block * block : 0;
  const size_t bytes = a.count * sizeof(double);
  double* send = allocate(bytes, head_bytes, a.shared);
  double* recv = allocate(bytes, head_bytes, a.shared);
  // The shared part is the same pages on every rank: one rank writes it (1024 ranks each
  // writing 64 MiB of sines would cost minutes of simulation for nothing), the others only
  // their private memory (the head and what SMPI keeps private around it: its shared blocks
  // are whole blocks of smpi/shared-malloc-blocksize). The reference allreduce below orders
  // the writes before every read.
  const size_t period = a.shared && a.periodic ? a.count / size_t(ranks) : 0;
  std::vector<std::pair<size_t, size_t>> private_blocks;
  size_t offset = 0;
  if (!a.shared || rank == 0 || !smpi_is_shared(send, private_blocks, &offset))
    private_blocks = {{0, bytes}};
  for (const auto& [begin, end] : private_blocks)
    fill(send, begin / sizeof(double), std::min(end, bytes) / sizeof(double), head, rank, period);
  // From a private copy: SMPI moves no bytes out of a buffer it knows as shared.
  std::vector<double> mine(send, send + head), reference(head);
  MPI_Allreduce(mine.data(), reference.data(), int(head), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double peak = 0;
  for (double v : reference) peak = std::max(peak, std::fabs(v));

  int failures = 0;
  for (const std::string& name : a.algorithms) {
    auto alg = commpress::comm::parse_algorithm(name);
    if (!alg.ok()) {
      if (rank == 0) std::fprintf(stderr, "smpi_allreduce: %s\n", alg.status().message().c_str());
      ++failures;
      continue;
    }
    commpress::comm::Options o;
    o.algorithm = alg.value();
    o.bound = commpress::comm::ErrorBound::relative(a.bound_rel);
    double best = 1e300;
    commpress::comm::Report report;
    std::string error;
    for (int r = 0; r < a.repeat && error.empty(); ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      auto rep = commpress::comm::allreduce(send, recv, a.count, commpress::comm::Dtype::f64,
                                            commpress::comm::Op::sum, MPI_COMM_WORLD, o);
      double t = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      best = std::min(best, slowest);
      if (rep.ok()) report = rep.value();
      else error = rep.status().message();
    }
    // The bound the run guarantees, plus the float rounding of two different summation orders.
    double err = 0;
    for (size_t i = 0; i < head && error.empty(); ++i)
      err = std::max(err, std::fabs(recv[i] - reference[i]));
    double worst = 0;
    MPI_Allreduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double allowed = report.guaranteed_abs_bound + 4.0 * ranks * peak * 0x1p-53;
    const bool within = error.empty() && worst <= allowed;
    if (!within) ++failures;
    if (rank == 0)
      std::printf("{\"op\":\"allreduce\",\"algorithm_requested\":\"%s\",\"algorithm\":\"%s\","
                  "\"ranks\":%d,\"count\":%zu,\"bytes_per_rank\":%zu,\"bound_rel\":%g,"
                  "\"shared\":%s,\"periodic\":%s,\"checked_values\":%zu,\"seconds\":%.9g,"
                  "\"predicted_seconds\":%.9g,\"ratio\":%.6g,\"max_abs_error\":%.6g,"
                  "\"allowed_abs_error\":%.6g,\"within_bound\":%s,\"error\":\"%s\"}\n",
                  name.c_str(), commpress::algorithm_name(report.algorithm), ranks, a.count,
                  bytes, a.bound_rel, a.shared ? "true" : "false", period ? "true" : "false",
                  head, best,
                  report.predicted_seconds, report.ratio(), worst, allowed,
                  within ? "true" : "false", error.c_str());
    std::fflush(stdout);
  }
  release(send, a.shared);
  release(recv, a.shared);
  MPI_Finalize();
  return failures ? 1 : 0;
}
