// The measurement loop of `commpress bench collective`. Every timed run sits between barriers
// and is timed with MPI_Wtime; its time is the slowest rank's. Ranks leave a barrier at
// different times, so that time includes the skew of their entries; where MPI's clock is
// global (MPI_WTIME_IS_GLOBAL: SimGrid's simulated clock) the run's time from the last rank's
// entry to the last rank's exit is kept too, the time a model of ranks starting together
// describes. The check against the exact result, the byte counts and the output happen
// outside the timed region.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli/bench_collective.hpp"
#include "cli/bench_collective_agreement.hpp"
#include "cli/bench_collective_case.hpp"
#include "cli/bench_json.hpp"
#include "comm/session/comm_dup.hpp"

namespace commpress::cli {

namespace {

// One line of output: an algorithm (or MPI's own operation) at one error bound.
struct Measurement {
  std::string requested;  // the algorithm as given
  bool mpi_own = false;   // MPI's operation, not commpress
  comm::Options opts;
};

struct Observation {
  Status status;                           // the first failure (this rank's, or a stand-in)
  std::vector<double> seconds;             // per timed repeat, max over ranks
  std::vector<double> after_last_entry;    // per timed repeat where the clock is global
  comm::Report report;                     // this rank's, from the last repeat
  uint64_t bytes_sent = 0, raw_bytes = 0;  // summed over ranks
  double max_error = 0;                    // max over ranks
};

// Initializes MPI unless the caller already did; finalizes what it initialized.
class MpiScope {
 public:
  MpiScope() {
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) {
      MPI_Init(nullptr, nullptr);
      owned_ = true;
    }
  }
  ~MpiScope() {
    if (owned_) MPI_Finalize();
  }
  MpiScope(const MpiScope&) = delete;
  MpiScope& operator=(const MpiScope&) = delete;

 private:
  bool owned_ = false;
};

// A private communicator that reports errors instead of aborting.
class BenchComm {
 public:
  BenchComm() {
    comm::detail::comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~BenchComm() { MPI_Comm_free(&comm_); }
  BenchComm(const BenchComm&) = delete;
  BenchComm& operator=(const BenchComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// True on every rank when st failed on any rank; a rank that did not fail itself takes a
// stand-in message.
bool failed_anywhere(Status& st, MPI_Comm comm) {
  int mine = st.ok() ? 0 : 1, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any && st.ok()) st = Status{ErrorCode::mismatch, "failed on another rank"};
  return any != 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

Result<std::vector<Measurement>> plan_measurements(const BenchCollectiveArgs& args) {
  std::vector<codec::ErrorBound> bounds;
  std::string codec_name = args.codec;
  if (!args.lossless.empty()) {
    bounds.push_back(codec::ErrorBound::lossless());
    codec_name = args.lossless;
  }
  for (double v : args.bound_abs) bounds.push_back(codec::ErrorBound::absolute(v));
  for (double v : args.bound_rel) bounds.push_back(codec::ErrorBound::relative(v));
  for (const auto& b : bounds)
    if (b.mode != codec::BoundMode::lossless && !(std::isfinite(b.value) && b.value > 0))
      return Status{ErrorCode::invalid_argument,
                    "error bounds must be positive and finite, got " + std::to_string(b.value)};

  std::vector<Measurement> plan;
  for (const std::string& name : args.algorithms) {
    Measurement m;
    m.requested = name;
    m.opts.codec = codec_name;
    m.opts.chunk_bytes = args.chunk_bytes;
    m.opts.pretend_ranks_per_node = args.pretend_ranks_per_node;
    if (name == "mpi") {  // MPI's own operation: the bound does not apply
      m.mpi_own = true;
      plan.push_back(m);
      continue;
    }
    auto alg = comm::parse_algorithm(name);
    if (!alg.ok()) return alg.status();
    m.opts.algorithm = *alg;
    if (bounds.empty())
      return Status{ErrorCode::invalid_argument,
                    "algorithm '" + name +
                        "' compresses: give --bound-abs, --bound-rel or "
                        "--lossless CODEC"};
    for (const auto& b : bounds) {
      m.opts.bound = b;
      plan.push_back(m);
    }
  }
  if (plan.empty()) return Status{ErrorCode::invalid_argument, "no --algorithm given"};
  return plan;
}

// The attribute is MPI_COMM_WORLD's (a duplicate need not carry it).
bool clock_is_global() {
  int* global = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
  return found && global && *global;
}

// One run of a measurement, timed between barriers when `timed`; the slowest rank's time is
// recorded. Every rank sees the same failure verdict.
void run_once(BenchCase& bench, const Measurement& m, bool timed, Observation& out, MPI_Comm comm) {
  if (timed) MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  if (m.mpi_own) {
    out.status = bench.run_mpi();
  } else {
    auto r = bench.run_commpress(m.opts);
    if (r.ok()) out.report = *r;
    out.status = r.status();
  }
  const double t1 = MPI_Wtime();
  double local[4] = {t1 - t0, out.status.ok() ? 0.0 : 1.0, t0, t1}, global[4];
  MPI_Allreduce(local, global, 4, MPI_DOUBLE, MPI_MAX, comm);
  if (global[1] != 0) {
    failed_anywhere(out.status, comm);
  } else if (timed) {
    out.seconds.push_back(global[0]);
    if (clock_is_global()) out.after_last_entry.push_back(global[3] - global[2]);
  }
}

// Checks the output of a measurement's last run and totals its bytes over the ranks.
void finish(BenchCase& bench, const Measurement& m, Observation& out, MPI_Comm comm) {
  double err = bench.max_error();
  MPI_Allreduce(&err, &out.max_error, 1, MPI_DOUBLE, MPI_MAX, comm);
  uint64_t mine[2] = {m.mpi_own ? bench.mpi_nominal_bytes() : out.report.bytes_sent,
                      m.mpi_own ? bench.mpi_nominal_bytes() : out.report.raw_bytes};
  uint64_t sum[2];
  MPI_Allreduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, comm);
  out.bytes_sent = sum[0];
  out.raw_bytes = sum[1];
  // MPI's own line carries the model's time for it too, so its model is judged like the others.
  if (m.mpi_own)
    if (auto plan = bench.plan_mpi(); plan.ok())
      out.report.predicted_seconds = plan->predicted_seconds;
}

const char* bound_mode_name(const Measurement& m) {
  if (m.mpi_own) return "none";
  switch (m.opts.bound.mode) {
    case codec::BoundMode::abs:
      return "abs";
    case codec::BoundMode::rel:
      return "rel";
    default:
      return "lossless";
  }
}

std::string result_line(const BenchCollectiveArgs& args, const BenchCase& bench,
                        const DataSource& src, int ranks, const Measurement& m,
                        const Observation& o) {
  JsonLine j;
  j.add("op", args.op).add("algorithm_requested", m.requested);
  if (m.mpi_own)
    j.add("algorithm", "mpi").add("codec", "none");
  else if (o.status.ok())
    j.add("algorithm", comm::algorithm_name(o.report.algorithm)).add("codec", o.report.codec);
  else
    j.null("algorithm").add("codec", m.opts.codec);
  j.add("dtype", args.dtype).add("data", src.name()).add("ranks", ranks);
  j.add("count", uint64_t(args.count)).add("bytes_per_rank", bench.input_bytes_per_rank());
  j.add("bound_mode", bound_mode_name(m));
  if (m.mpi_own || m.opts.bound.mode == codec::BoundMode::lossless)
    j.null("bound");
  else
    j.add("bound", m.opts.bound.value);
  if (!o.status.ok()) return j.add("error", o.status.to_string()).str();

  j.add("repeats", int(o.seconds.size()))
      .add("seconds_median", median(o.seconds))
      .add("seconds_min", *std::min_element(o.seconds.begin(), o.seconds.end()))
      .add("seconds", o.seconds);
  if (!o.after_last_entry.empty())
    j.add("seconds_after_last_entry_median", median(o.after_last_entry))
        .add("seconds_after_last_entry", o.after_last_entry);
  j.add("bytes_sent", o.bytes_sent).add("raw_bytes", o.raw_bytes);
  j.add("ratio", o.bytes_sent ? double(o.raw_bytes) / double(o.bytes_sent) : 1.0);
  // MPI's own traffic (and Algorithm::Mpi's) is counted, not observed.
  j.add("bytes_measured", !m.mpi_own && o.report.algorithm != comm::Algorithm::Mpi);
  if (m.mpi_own)
    j.null("guaranteed_abs_bound");
  else
    j.add("guaranteed_abs_bound", o.report.guaranteed_abs_bound);
  if (o.report.predicted_seconds > 0)
    j.add("predicted_seconds", o.report.predicted_seconds);
  else
    j.null("predicted_seconds");
  j.add("max_abs_error", o.max_error);
  if (m.mpi_own)
    j.null("within_bound");
  else
    j.add("within_bound", o.max_error <= o.report.guaranteed_abs_bound);
  // What ran: the chunk asked for, or the one Auto chose (0 for MPI's own).
  j.add("chunk_bytes", uint64_t(m.mpi_own ? 0 : o.report.chunk_bytes))
      .add("pretend_ranks_per_node", args.pretend_ranks_per_node)
      .add("root", args.root)
      .add("seed", args.seed);
  return j.str();
}

Result<DataSource> make_source(const BenchCollectiveArgs& args, codec::Dtype d) {
  if (!args.input.empty()) return DataSource::from_file(args.input, d);
  auto shape = parse_data_shape(args.data);
  if (!shape.ok()) return shape.status();
  return DataSource::generated(*shape, args.seed);
}

Status run_in_mpi(const BenchCollectiveArgs& args, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Everything that can fail locally is settled before the first measurement, together.
  Status st;
  auto op = parse_bench_op(args.op);
  auto dtype = codec::parse_dtype(args.dtype);
  auto plan = plan_measurements(args);
  std::optional<DataSource> src;
  std::unique_ptr<BenchCase> bench;
  if (!op.ok())
    st = op.status();
  else if (!dtype.ok())
    st = dtype.status();
  else if (!plan.ok())
    st = plan.status();
  if (st.ok() && (args.repeat < 1 || args.warmup < 0))
    st = {ErrorCode::invalid_argument, "--repeat must be >= 1 and --warmup >= 0"};
  COMMPRESS_RETURN_IF_ERROR(agree_on_plan(args, st, comm));
  if (st.ok()) {
    auto s = make_source(args, *dtype);
    if (s.ok())
      src.emplace(std::move(*s));
    else
      st = s.status();
  }
  if (st.ok()) {
    auto b = BenchCase::make(*op, args.count, *dtype, args.root, *src, comm);
    if (b.ok())
      bench = std::move(*b);
    else
      st = b.status();
  }
  if (failed_anywhere(st, comm)) return st;

  // Open every connection before the first timed repeat.
  std::vector<int> ping(static_cast<size_t>(ranks), rank), pong(static_cast<size_t>(ranks));
  MPI_Alltoall(ping.data(), 1, MPI_INT, pong.data(), 1, MPI_INT, comm);

  // Rounds: each runs every measurement once, starting one later than the round before, so
  // slow drifts of a shared machine spread over all measurements instead of landing on one.
  // The first `warmup` rounds are untimed; the output of the last round is checked.
  const size_t count = plan->size();
  const int rounds = args.warmup + args.repeat;
  std::vector<Observation> outcomes(count);
  for (int round = 0; round < rounds; ++round) {
    const bool last = round + 1 == rounds;
    for (size_t k = 0; k < count; ++k) {
      const size_t i = (k + size_t(round)) % count;
      Observation& o = outcomes[i];
      if (!o.status.ok()) continue;  // failed in an earlier round
      if (last) bench->poison_output();
      run_once(*bench, (*plan)[i], round >= args.warmup, o, comm);
      if (last && o.status.ok()) finish(*bench, (*plan)[i], o, comm);
    }
  }
  Status first_failure;
  int failures = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!outcomes[i].status.ok() && failures++ == 0) first_failure = outcomes[i].status;
    if (rank == 0)
      std::printf("%s\n", result_line(args, *bench, *src, ranks, (*plan)[i], outcomes[i]).c_str());
  }
  std::fflush(stdout);
  if (failures == 0) return {};
  return {first_failure.code(), std::to_string(failures) + " of " + std::to_string(plan->size()) +
                                    " measurements failed; the first: " + first_failure.message()};
}

}  // namespace

Status run_bench_collective(const BenchCollectiveArgs& args) {
  MpiScope mpi;
  BenchComm comm;
  return run_in_mpi(args, comm.get());
}

}  // namespace commpress::cli
