// The measurement loop of `commpress bench gemm`. Every timed run sits between barriers and is
// timed with MPI_Wtime as the slowest rank's time; the check against the reference, the byte
// counts and the output happen outside the timed region.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>

#include "cli/bench_gemm.hpp"
#include "cli/bench_gemm_agreement.hpp"
#include "cli/bench_gemm_case.hpp"
#include "cli/bench_gemm_mpi.hpp"
#include "cli/bench_gemm_plan.hpp"
#include "cli/bench_json.hpp"
#include "commpress/blas_info.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::cli {

namespace {

struct Observation {
  Status status;                // agreed by every rank
  std::vector<double> seconds;  // per timed repeat, max over ranks
  linalg::GemmReport report;    // this rank's, from the last run
  // Over the ranks: largest per-rank traffic and memory, and the totals for the ratio.
  uint64_t bytes_sent_max = 0, raw_bytes_max = 0, memory_max = 0;
  uint64_t bytes_sent_total = 0, raw_bytes_total = 0;
  ErrorCheck error;            // combined over the ranks
  bool bytes_nominal = false;  // bytes counted from the textbook algorithm, not observed
};

template <class T>
using Cases = std::map<GridShape, std::unique_ptr<GemmCase<T>>>;

template <class T>
void run_once(GemmCase<T>& bench, const GemmMeasurement& m, bool timed, Observation& out,
              MPI_Comm comm) {
  if (timed) MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  if (m.blas) {
    bench.run_blas();
  } else {
    auto r = bench.run(m.opts);
    if (r.ok()) out.report = *r;
    out.status = r.status();  // gemm returns the same status on every rank
  }
  double local[2] = {MPI_Wtime() - t0, out.status.ok() ? 0.0 : 1.0}, global[2];
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
  if (global[1] != 0)
    gemm_failed_anywhere(out.status, comm);
  else if (timed)
    out.seconds.push_back(global[0]);
}

template <class T>
void finish(const GemmCase<T>& bench, Observation& out, MPI_Comm comm) {
  out.error = bench.check(out.report.guaranteed_abs_bound);
  double errs[2] = {out.error.max_error, out.error.allowance}, errs_max[2];
  MPI_Allreduce(errs, errs_max, 2, MPI_DOUBLE, MPI_MAX, comm);
  int within = out.error.within ? 1 : 0, all_within = 0;
  MPI_Allreduce(&within, &all_within, 1, MPI_INT, MPI_MIN, comm);
  out.error = {errs_max[0], errs_max[1], all_within == 1};
  linalg::GemmReport& r = out.report;
  out.bytes_nominal = r.algorithm == linalg::GemmAlgorithm::ScaLapack && r.bytes_sent == 0;
  if (out.bytes_nominal) r.bytes_sent = r.raw_bytes = bench.panel_broadcast_bytes();
  uint64_t mine[3] = {r.bytes_sent, r.raw_bytes, r.memory_bytes}, most[3], sum[3];
  MPI_Allreduce(mine, most, 3, MPI_UINT64_T, MPI_MAX, comm);
  MPI_Allreduce(mine, sum, 3, MPI_UINT64_T, MPI_SUM, comm);
  out.bytes_sent_max = most[0];
  out.raw_bytes_max = most[1];
  out.memory_max = most[2];
  out.bytes_sent_total = sum[0];
  out.raw_bytes_total = sum[1];
}

const char* bound_mode_name(const codec::ErrorBound& b) {
  switch (b.mode) {
    case codec::BoundMode::abs:
      return "abs";
    case codec::BoundMode::rel:
      return "rel";
    default:
      return "lossless";
  }
}

std::string result_line(const BenchGemmArgs& args, const GemmProblem& p, int ranks,
                        ReferenceKind reference, const GemmMeasurement& m, const Observation& o) {
  JsonLine j;
  j.add("algorithm_requested", m.requested);
  if (m.blas)
    j.add("algorithm", "blas");
  else if (o.status.ok())
    j.add("algorithm", linalg::gemm_algorithm_name(o.report.algorithm));
  else
    j.null("algorithm");
  j.add("grid", m.grid.str())
      .add("grid_rows", m.grid.rows)
      .add("grid_cols", m.grid.cols)
      .add("layers", m.grid.layers)
      .add("ranks", ranks);
  j.add("m", uint64_t(p.m)).add("n", uint64_t(p.n)).add("k", uint64_t(p.k));
  j.add("transa", args.transa).add("transb", args.transb).add("dtype", args.dtype);
  j.add("zeros", p.zeros);
  j.add("codec_requested", m.opts.codec)
      .add("codec", o.status.ok() && !m.blas ? o.report.codec : std::string("none"));
  j.add("bound_mode", bound_mode_name(m.opts.bound));
  if (m.opts.bound.mode == codec::BoundMode::lossless)
    j.null("bound");
  else
    j.add("bound", m.opts.bound.value);
  j.add("overlap", m.opts.overlap).add("panel", uint64_t(m.opts.panel)).add("seed", args.seed);
  // The local products' kernel: a generic fallback makes every figure measure it.
  const linalg::BlasInfo blas = linalg::blas_info();
  j.add("blas", blas.library + " " + blas.version).add("blas_core", blas.core);
  j.add("blas_fallback", blas.fallback);
  if (!o.status.ok()) return j.add("error", o.status.to_string()).str();

  const double median = gemm_median(o.seconds);
  j.add("repeats", int(o.seconds.size()))
      .add("seconds_median", median)
      .add("seconds_min", *std::min_element(o.seconds.begin(), o.seconds.end()))
      .add("seconds", o.seconds);
  j.add("gflops", median > 0 ? 2.0 * double(p.m) * double(p.n) * double(p.k) / median / 1e9
                             : std::numeric_limits<double>::quiet_NaN());
  j.add("bytes_sent", o.bytes_sent_max)
      .add("raw_bytes", o.raw_bytes_max)
      .add("bytes_sent_total", o.bytes_sent_total)
      .add("raw_bytes_total", o.raw_bytes_total)
      .add("ratio",
           o.bytes_sent_total ? double(o.raw_bytes_total) / double(o.bytes_sent_total) : 1.0)
      .add("bytes_measured", !o.bytes_nominal && !m.blas)
      .add("memory_bytes", o.memory_max);
  if (o.report.predicted_seconds > 0)
    j.add("predicted_seconds", o.report.predicted_seconds);
  else
    j.null("predicted_seconds");
  j.add("guaranteed_abs_bound", o.report.guaranteed_abs_bound);
  j.add("reference", reference_kind_name(reference));
  if (reference == ReferenceKind::none)
    j.null("max_abs_error").null("rounding_allowance").null("within_bound");
  else
    j.add("max_abs_error", o.error.max_error)
        .add("rounding_allowance", o.error.allowance)
        .add("within_bound", o.error.within);
  return j.str();
}

template <class T>
Status run_typed(const BenchGemmArgs& args, const GemmProblem& problem, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  linalg::detail::set_blas_threads_for(comm);

  auto plan = plan_gemm_measurements(args, problem, codec::dtype_of<T>(), comm);
  if (!plan.ok()) return plan.status();  // the same on every rank: the arguments are
  Cases<T> cases;
  for (const GemmMeasurement& m : *plan) {
    if (cases.count(m.grid)) continue;
    auto c = GemmCase<T>::make(problem, m.grid, comm);
    if (!c.ok()) return c.status();
    cases[m.grid] = std::move(*c);
  }

  // Rounds: each runs every measurement once, starting one later than the round before, so
  // slow drifts of a shared machine spread over all measurements instead of landing on one.
  // The first `warmup` rounds are untimed; the output of the last round is checked.
  const size_t count = plan->size();
  const int rounds = args.warmup + args.repeat;
  std::vector<Observation> outcomes(count);
  for (int round = 0; round < rounds; ++round) {
    const bool last = round + 1 == rounds;
    for (size_t step = 0; step < count; ++step) {
      const size_t i = (step + size_t(round)) % count;
      Observation& o = outcomes[i];
      if (!o.status.ok()) continue;  // failed in an earlier round
      GemmCase<T>& bench = *cases.at((*plan)[i].grid);
      if (last) bench.poison_output();
      run_once(bench, (*plan)[i], round >= args.warmup, o, comm);
      if (last && o.status.ok()) finish(bench, o, comm);
    }
  }
  Status first_failure;
  int failures = 0, unsupported = 0;
  for (size_t i = 0; i < count; ++i) {
    const Observation& o = outcomes[i];
    const GemmMeasurement& m = (*plan)[i];
    if (o.status.code() == ErrorCode::unsupported)
      ++unsupported;
    else if (!o.status.ok() && failures++ == 0)
      first_failure = o.status;
    if (o.status.ok() && !o.error.within && failures++ == 0)
      first_failure = {ErrorCode::internal,
                       m.requested + " " + m.opts.codec + ": an element's error exceeds its bound"};
    if (rank == 0)
      std::printf("%s\n",
                  result_line(args, problem, ranks, cases.at(m.grid)->reference(), m, o).c_str());
  }
  std::fflush(stdout);
  if (rank == 0 && unsupported)
    std::fprintf(stderr, "commpress bench gemm: %d of %zu measurements not supported yet\n",
                 unsupported, count);
  if (failures == 0) return {};
  return {first_failure.code(), std::to_string(failures) + " of " + std::to_string(count) +
                                    " measurements failed; the first: " + first_failure.message()};
}

}  // namespace

Status run_bench_gemm(const BenchGemmArgs& args) {
  GemmMpiScope mpi;
  // Every rank checks its own options, then all agree on them: a rank alone with a bad or a
  // different option would otherwise leave the others waiting in the first multiply.
  auto problem = gemm_problem_of(args);
  auto dtype = codec::parse_dtype(args.dtype);
  Status local = !problem.ok() ? problem.status() : !dtype.ok() ? dtype.status() : Status{};
  if (local.ok() && *dtype != codec::Dtype::f64 && *dtype != codec::Dtype::f32)
    local = {ErrorCode::invalid_argument, "--dtype takes f32 or f64, got '" + args.dtype + "'"};
  COMMPRESS_RETURN_IF_ERROR(agree_on_plan(args, local, mpi.comm()));
  if (*dtype == codec::Dtype::f64) return run_typed<double>(args, *problem, mpi.comm());
  return run_typed<float>(args, *problem, mpi.comm());
}

}  // namespace commpress::cli
