#include "comm/probe/quick_probe.hpp"

#include <omp.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "comm/probe/codec_rates.hpp"
#include "comm/probe/codec_share.hpp"
#include "comm/probe/link_probe.hpp"
#include "comm/probe/mpi_against_plain.hpp"
#include "comm/probe/probed_profile.hpp"
#include "comm/probe/step_wait.hpp"
#include "comm/probe/sum_rate.hpp"
#include "comm/probe/timing.hpp"
#include "comm/select.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/comm_dup.hpp"
#include "comm/session/private_comm.hpp"

namespace commpress::comm::probe {

namespace {

// Values per codec measurement: 256 KiB of f32, 512 KiB of f64, within a core's L2 on the
// development machine (bigger arrays measure the memory more than the codec; `commpress
// profile` uses 4 Mi values), and a millisecond or less of codec work per run; the fixed
// cost of a call is measured apart (measure_call_overhead).
constexpr size_t kCodecValues = size_t{64} << 10;
// The call's own values, where it holds more, as a sample of that many pieces spread over
// them: the rates and the ratio of its data as a whole, not of its first values only.
constexpr size_t kSamplePieces = 8;
// The fastest of 3 runs per operation (of 2 for the combines, whose first run sizes their
// output): with one run, the first touch of a buffer set a combine's rate.
constexpr int kCodecReps = 3;
// Long enough to span several of the scheduler's time slices where ranks share a core.
constexpr double kShareWindow = 0.02;

std::mutex g_extensions_mutex;
std::vector<ProbeExtension>& extensions() {
  static std::vector<ProbeExtension> list;
  return list;
}

// The values a codec is measured on: a sample of the call's own where this rank holds at
// least kCodecValues of them, else a random walk.
template <class T>
struct Values {
  std::vector<T> held;
  const T* a = nullptr;
  size_t n = kCodecValues;
};

template <class T>
Values<T> values_of(const ProbeCall& call) {
  Values<T> v;
  if (call.data && call.dtype == codec::dtype_of<T>() && call.count >= kCodecValues) {
    const T* own = static_cast<const T*>(call.data);
    v.a = own;
    if (call.count > kCodecValues) {
      constexpr size_t piece = kCodecValues / kSamplePieces;
      v.held.resize(kCodecValues);
      for (size_t i = 0; i < kSamplePieces; ++i)
        std::copy_n(own + (call.count - piece) * i / (kSamplePieces - 1), piece,
                    v.held.begin() + ptrdiff_t(i * piece));
      v.a = v.held.data();
    }
  } else {
    v.held = random_walk<T>(v.n, 11);
    v.a = v.held.data();
  }
  return v;
}

template <class T>
Result<CodecRow> rates_on(const codec::Codec& c, const ProbeCall& call) {
  const Values<T> v = values_of<T>(call);
  // The combines' second operand: the same values (their rate does not depend on which).
  return measure_codec<T>(c, call.rel_bound, v.a, v.a, v.n, kCodecReps, Clocking::on_core);
}

template <class T>
Result<double> share_on(MPI_Comm comm, const codec::Codec& c, const ProbeCall& call,
                        double fastest) {
  const Values<T> v = values_of<T>(call);
  return codec_share<T>(comm, c, call.rel_bound, v.a, v.n, fastest, kShareWindow);
}

// The codecs and dtypes Auto will look up: szp (the default lossy codec and the homomorphic
// algorithms') for both dtypes, and the call's own codec for its dtype.
std::vector<std::pair<const codec::Codec*, codec::Dtype>> to_measure(const ProbeCall& call) {
  std::vector<std::pair<const codec::Codec*, codec::Dtype>> out;
  if (const codec::Codec* szp = codec::find_codec("szp"))
    for (codec::Dtype dt : {codec::Dtype::f32, codec::Dtype::f64})
      if (szp->supports(dt)) out.push_back({szp, dt});
  if (!call.codec.empty() && call.codec != "none" && call.codec != "szp")
    if (const codec::Codec* c = codec::find_codec(call.codec))
      if (c->supports(call.dtype) && (call.dtype == codec::Dtype::f32 || call.dtype == codec::Dtype::f64))
        out.push_back({c, call.dtype});
  return out;
}

// Each rate is the fastest rank's fastest run timed on its core (the core's own rate: how
// long runs wait for a core depends on the moment), times the share of a core the slowest
// rank's codec work keeps while every rank codes at once (codec_share.hpp); gamma and the
// calls' overhead, times, are divided by it.
template <class Phase>
Status measure_codecs(MPI_Comm comm, const ProbeCall& call, model::MachineProfile& m,
                      double& core_share, const Phase& phase) {
  comm::detail::CodecThreads share;  // the threads a collective's codec work gets
  std::vector<model::CodecRates> rates;
  for (auto [c, dt] : to_measure(call)) {
    auto row = dt == codec::Dtype::f32 ? rates_on<float>(*c, call) : rates_on<double>(*c, call);
    int failed = row.ok() ? 0 : 1;
    COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (!row.ok()) return row.status();
    if (failed) return {ErrorCode::internal, "probe: codec " + std::string(c->name()) +
                                                 " failed on another rank"};
    double overhead = dt == codec::Dtype::f32 ? measure_call_overhead<float>(*c, *row)
                                              : measure_call_overhead<double>(*c, *row);
    // Rates by their maximum; the ratio (it depends on each rank's data) by its minimum and
    // the overhead by its maximum (both negated for the one MPI_MAX).
    double v[6] = {row->compress, row->decompress, row->combine, row->combine_raw, -row->ratio,
                   overhead};
    COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_DOUBLE, MPI_MAX, comm));
    row->compress = v[0], row->decompress = v[1], row->combine = v[2], row->combine_raw = v[3];
    row->ratio = -v[4];
    rates.push_back(summarize(std::span<const CodecRow>(&*row, 1), v[5]));
  }
  phase("codecs");
  if (rates.empty()) return {};
  // The share, measured with the first codec (szp) on the call's dtype where it was measured.
  const model::CodecRates* on = &rates.front();
  for (const model::CodecRates& r : rates)
    if (r.codec == on->codec && r.dtype == call.dtype) on = &r;
  const codec::Codec* c = codec::find_codec(on->codec);
  auto got = on->dtype == codec::Dtype::f32 ? share_on<float>(comm, *c, call, on->compress)
                                            : share_on<double>(comm, *c, call, on->compress);
  if (!got.ok()) return got.status();
  core_share = *got;
  phase("core share");
  for (model::CodecRates& r : rates) {
    for (double* rate : {&r.compress, &r.decompress, &r.combine, &r.combine_raw}) *rate *= *got;
    r.call_overhead /= *got;
    m.codecs.push_back(r);
  }
  m.gamma /= *got;
  return {};
}

// MPI's allreduce, allgather and bcast against SharedWindow, and its reduce_scatter against
// PlainRing, where every rank shares one node: without these Auto never runs SharedWindow or
// PlainRing (it prices them only from MPI's time and these ratios), and on one node they are
// often the fastest allreduce and reduce-scatter (bench/results/zeroconf.md,
// bench/results/collectives.md). Across nodes each reduce-scatter call moves a whole vector
// over the links (tens of milliseconds a call at 1 Gbit/s): there it stays MPI's unless
// `commpress profile` measured it. Fewer rounds and sizes than `commpress profile`
// (kQuickWindowRounds), on a communicator of their own: the shared segments the measurements
// map are unmapped when it is freed here, not kept.
template <class Phase>
Status measure_on_one_node(MPI_Comm comm, model::MachineProfile& m, int& calls,
                           const Phase& phase) {
  constexpr double kLargest = 8.0 * 1024 * 1024;
  AgainstPlainRounds rounds = kQuickWindowRounds;
  rounds.calls = &calls;
  MPI_Comm own = MPI_COMM_NULL;
  COMMPRESS_MPI(detail::comm_dup(comm, &own));
  exempt_from_probe(own);
  Status st;
  auto take = [&](auto measure, double max_bytes, model::MpiAgainstPlain& into, const char* name) {
    if (!st.ok()) return;
    auto r = measure(own, max_bytes, rounds);
    if (r.ok()) into = *r;
    else st = r.status();
    phase(name);
  };
  take(measure_allreduce_mpi, kLargest, m.allreduce_mpi, "allreduce window");
  // An allgather's block is a p-th of what each rank receives: blocks up to 1 MiB (larger
  // ones take MPI's slowdown at 1 MiB).
  take(measure_allgather_mpi, kLargest / 8, m.allgather_mpi, "allgather window");
  take(measure_bcast_window_mpi, kLargest, m.bcast_window_mpi, "bcast window");
  // A reduce-scatter's block is a p-th of the vector: blocks up to 1 MiB, as the allgather's.
  take(measure_reduce_scatter_mpi, kLargest / 8, m.reduce_scatter_mpi, "reduce_scatter ring");
  MPI_Comm_free(&own);
  return st;
}

}  // namespace

void add_probe_extension(ProbeExtension extension) {
  std::lock_guard<std::mutex> lock(g_extensions_mutex);
  extensions().push_back(extension);
}

Result<Probed> quick_probe(MPI_Comm comm, std::span<const int> node_of_rank,
                           const ProbeCall& call) {
  const int size = int(node_of_rank.size());
  Probed out;
  model::MachineProfile& m = out.profile;
  auto t0 = Clock::now();
  auto phase = [&](const char* name) {
    out.phases += std::string(out.phases.empty() ? "" : ", ") + name + " " +
                  std::to_string(seconds_since(t0));
    t0 = Clock::now();
  };
  // The partners of rank 0: the first rank on its node, the first on another.
  int same = -1, other = -1;
  for (int r = 1; r < size; ++r) {
    if (same < 0 && node_of_rank[r] == node_of_rank[0]) same = r;
    if (other < 0 && node_of_rank[r] != node_of_rank[0]) other = r;
  }
  std::vector<int> nodes(node_of_rank.begin(), node_of_rank.end());
  std::sort(nodes.begin(), nodes.end());
  const int node_count = int(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  if (same > 0) {
    auto link = probe_link(comm, 0, same, &out.round_trips);
    if (!link.ok()) return link.status();
    m.intra_node = *link;
    m.network = *link;
  }
  if (other > 0) {
    auto link = probe_link(comm, 0, other, &out.round_trips);
    if (!link.ok()) return link.status();
    m.network = *link;
  }
  phase("links");
  bool even = true;
  for (int n = 0; n < size; ++n)
    even = even && std::count(node_of_rank.begin(), node_of_rank.end(), node_of_rank[n]) ==
                       size / node_count;
  // Nodes of equal size only: the hierarchical algorithm's model needs one size. On one node
  // the model ignores it (select.cpp), as it does a measured profile's.
  m.ranks_per_node = even ? size / node_count : 0;
  double gamma = measure_gamma(size_t{1} << 19, 3);
  double over = comm::detail::local_oversubscription();  // the rates will include this sharing
  double worst[2] = {gamma, over};
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, comm));
  m.gamma = worst[0];
  m.codec_oversubscription = worst[1];
  int threads = [] {
    comm::detail::CodecThreads share;
    return omp_get_max_threads();
  }();
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &threads, 1, MPI_INT, MPI_MAX, comm));
  m.threads_per_rank = threads;
  phase("gamma");
  if (size > 1) {
    auto wait = measure_step_wait(comm, m.network.eager.alpha, 6, 2);
    if (!wait.ok()) return wait.status();
    m.oversubscribed_wait = *wait;
  }
  phase("step wait");
  double core_share = 1;
  // At the step bound a sum over these ranks quantizes at: every reduction algorithm splits
  // the bound p ways (model/reduction_costs.cpp, divisor()), and the entropy mode's rate
  // falls as its codes grow (szp's hardly moves).
  ProbeCall at_step = call;
  at_step.rel_bound = call.rel_bound / std::max(1, size);
  COMMPRESS_RETURN_IF_ERROR(measure_codecs(comm, at_step, m, core_share, phase));
  out.phases += " (share " + std::to_string(core_share) + ")";
  if (node_count == 1 && size > 1)
    COMMPRESS_RETURN_IF_ERROR(measure_on_one_node(comm, m, out.window_calls, phase));
  std::vector<ProbeExtension> more;
  {
    std::lock_guard<std::mutex> lock(g_extensions_mutex);
    more = extensions();
  }
  for (ProbeExtension extend : more) COMMPRESS_RETURN_IF_ERROR(extend(comm, m));
  if (!more.empty()) phase("extensions");
  m.origin = "probed by the first collective, " + today_utc() + ": " + std::to_string(size) +
             " ranks on " + std::to_string(node_count) + " node(s), " +
             std::to_string(m.threads_per_rank) + " thread(s) per rank";
  return out;
}

}  // namespace commpress::comm::probe
