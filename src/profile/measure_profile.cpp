#include "profile/measure_profile.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>
#include <utility>

#include "profile/mpi_against_plain.hpp"
#include "comm/select.hpp"
#include "commpress/homomorphic.hpp"
#include "commpress/config.h"
#if COMMPRESS_HAVE_GEMM
#include "commpress/blas_info.hpp"
#include "linalg/gemm/local_blas.hpp"
#endif

namespace commpress::profile {

// The profiler is a client of comm: it times comm's own calls.
using namespace comm;

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTag = 0x7e0;

#define PROFILE_MPI(call)                                                                 \
  do {                                                                                    \
    if (int rc_ = (call); rc_ != MPI_SUCCESS)                                             \
      return Status{ErrorCode::mpi, std::string("profile: ") + #call + " failed (" + \
                                             std::to_string(rc_) + ")"};                  \
  } while (0)

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void say(const ProfileOptions& o, int rank, const std::string& line) {
  if (rank == 0 && o.progress) o.progress(line);
}

// --- ping-pong ------------------------------------------------------------------------------

// One-way time of an m-byte message between ranks 0 and 1: half the fastest round trip
// (what the link can do; a shared machine's preemptions only ever add time),
// repeated until ~50 ms of round trips (at least 3, at most 200). Rank 0 tells rank 1 how
// many round trips follow.
Result<double> pingpong(MPI_Comm comm, int rank, std::vector<std::byte>& buf, int m) {
  auto round_trip = [&]() -> Status {
    if (rank == 0) {
      PROFILE_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 1, kTag, comm));
      PROFILE_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 1, kTag, comm, MPI_STATUS_IGNORE));
    } else {
      PROFILE_MPI(MPI_Recv(buf.data(), m, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE));
      PROFILE_MPI(MPI_Send(buf.data(), m, MPI_BYTE, 0, kTag, comm));
    }
    return {};
  };
  auto t0 = Clock::now();
  COMMPRESS_RETURN_IF_ERROR(round_trip());  // warm-up (registration, connection set-up)
  int reps = int(std::clamp(0.05 / std::max(seconds_since(t0), 1e-7), 3.0, 200.0));
  PROFILE_MPI(MPI_Bcast(&reps, 1, MPI_INT, 0, comm));
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    t0 = Clock::now();
    COMMPRESS_RETURN_IF_ERROR(round_trip());
    times.push_back(seconds_since(t0) / 2);
  }
  return *std::min_element(times.begin(), times.end());
}

// --- overlap --------------------------------------------------------------------------------

void spin(double seconds) {
  const auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
  }
}

// The time the slower end of an m-byte message from rank 0 to rank 1 spends inside MPI (the
// nonblocking post and the wait) when both compute (spin, no MPI calls) for `busy` seconds in
// between. A message the link moves on its own (eager, into the kernel's or the peer's
// buffers) costs only the calls; one that moves only inside MPI calls (rendezvous, or a copy
// the receiving call makes itself) costs its whole transfer there.
Result<double> time_in_mpi(MPI_Comm pair, int rank, std::vector<std::byte>& buf, int m,
                           double busy) {
  MPI_Request req = MPI_REQUEST_NULL;
  PROFILE_MPI(MPI_Barrier(pair));
  auto t0 = Clock::now();
  if (rank == 0)
    PROFILE_MPI(MPI_Isend(buf.data(), m, MPI_BYTE, 1, kTag, pair, &req));
  else
    PROFILE_MPI(MPI_Irecv(buf.data(), m, MPI_BYTE, 0, kTag, pair, &req));
  double in_mpi = seconds_since(t0);
  spin(busy);
  t0 = Clock::now();
  PROFILE_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  in_mpi += seconds_since(t0);
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &in_mpi, 1, MPI_DOUBLE, MPI_MAX, pair));
  return in_mpi;
}

// Link::overlap_bytes: the largest power of two whose time inside MPI, beyond that of a 1 KiB
// message (the calls themselves), stays under half its extra ping-pong time while both
// ends compute for twice that (best of five: a preemption only ever adds). Sizes whose
// ping-pong time is under 4x the 1 KiB one are not judged (latency, not transfer, dominates
// them, and microsecond noise would): they count as overlapping if the first judged size
// does. Sizes stop at the first that fails.
Result<double> overlap_limit(MPI_Comm pair, int rank, std::vector<std::byte>& buf,
                             const std::vector<model::Sample>& one_way) {
  auto in_mpi = [&](const model::Sample& s) -> Result<double> {
    double best = INFINITY;
    for (int rep = 0; rep < 5; ++rep) {
      auto t = time_in_mpi(pair, rank, buf, int(s.bytes), 2 * s.seconds + 20e-6);
      if (!t.ok()) return t.status();
      best = std::min(best, *t);
    }
    return best;
  };
  const auto base = std::find_if(one_way.begin(), one_way.end(),
                                 [](const model::Sample& s) { return s.bytes >= 1024; });
  if (base == one_way.end()) return 0.0;
  auto base_mpi = in_mpi(*base);
  if (!base_mpi.ok()) return base_mpi.status();
  double limit = 0;
  for (auto s = base + 1; s != one_way.end(); ++s) {
    if (s->seconds < 4 * base->seconds) continue;
    auto t = in_mpi(*s);
    if (!t.ok()) return t.status();
    if (*t - *base_mpi > 0.5 * (s->seconds - base->seconds)) break;
    limit = s->bytes;
  }
  return limit;
}

// --- ping-pong and overlap, between ranks 0 and 1 --------------------------------------------

struct LinkMeasurements {
  std::vector<model::Sample> one_way;
  double overlap_bytes = 0;
};

// (bytes, seconds) pairs stored flat, as they travel in one broadcast.
std::vector<model::Sample> samples(const std::vector<double>& flat, size_t pairs) {
  std::vector<model::Sample> out;
  for (size_t i = 0; i < pairs; ++i) out.push_back({flat[2 * i], flat[2 * i + 1]});
  return out;
}

Result<LinkMeasurements> sweep(MPI_Comm comm, int rank, const ProfileOptions& o) {
  // The pair talks on its own communicator so the others can wait in a barrier.
  MPI_Comm pair = MPI_COMM_NULL;
  PROFILE_MPI(MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
  std::vector<double> flat;
  LinkMeasurements out;
  std::vector<std::byte> buf;
  Status st;
  if (pair != MPI_COMM_NULL) {
    buf.assign(size_t(o.max_message_bytes), std::byte{1});
    for (double m = 8; st.ok() && m <= o.max_message_bytes; m *= 2) {
      auto t = pingpong(pair, rank, buf, int(m));
      if (!t.ok()) {
        st = t.status();
        break;
      }
      flat.push_back(m);
      flat.push_back(*t);
      if (m >= 65536 && m < o.max_message_bytes)
        say(o, rank, "  ping-pong " + std::to_string(size_t(m)) + " B: " +
                         std::to_string(*t * 1e6) + " us");
    }
    if (st.ok()) {
      // Both ends judge the overlap by rank 0's times, so they probe the same sizes.
      if (int rc = MPI_Bcast(flat.data(), int(flat.size()), MPI_DOUBLE, 0, pair); rc != MPI_SUCCESS)
        st = {ErrorCode::mpi, "profile: MPI_Bcast failed (" + std::to_string(rc) + ")"};
      out.one_way = samples(flat, flat.size() / 2);
    }
    if (!st.ok()) {
      MPI_Comm_free(&pair);
      return st;
    }
  }
  // Every rank computes while the pair probes the overlap, as every rank does during a
  // collective. With the others idle, their cores were free for the kernel's packet work: on
  // the shaped network (4 ranks sharing 2 cores) the probe found transfers overlapping up to
  // 32 KiB, while a fused-ring allreduce keeps both cores busy, and the small chunks that made
  // Auto choose measured slower than 1 MiB ones (docs/measured-choices.md).
  PROFILE_MPI(MPI_Barrier(comm));
  if (pair != MPI_COMM_NULL) {
    auto limit = overlap_limit(pair, rank, buf, out.one_way);
    MPI_Comm_free(&pair);
    if (!limit.ok()) return limit.status();
    out.overlap_bytes = *limit;
  }
  MPI_Request probed = MPI_REQUEST_NULL;
  PROFILE_MPI(MPI_Ibarrier(comm, &probed));
  for (int done = 0; !done;) {
    if (rank >= 2) spin(100e-6);
    PROFILE_MPI(MPI_Test(&probed, &done, MPI_STATUS_IGNORE));
  }
  flat.push_back(out.overlap_bytes);
  int count = int(flat.size());
  PROFILE_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, comm));
  flat.resize(size_t(count));
  PROFILE_MPI(MPI_Bcast(flat.data(), count, MPI_DOUBLE, 0, comm));
  out.overlap_bytes = flat.back();
  out.one_way = samples(flat, (flat.size() - 1) / 2);
  return out;
}

// --- gamma ----------------------------------------------------------------------------------

// Seconds per byte of one operand of y += x (f32), the reduction every algorithm performs.
double measure_gamma() {
  const size_t n = size_t{8} << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  double best = INFINITY;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = Clock::now();
    float* __restrict yp = y.data();
    const float* __restrict xp = x.data();
    for (size_t i = 0; i < n; ++i) yp[i] += xp[i];
    best = std::min(best, seconds_since(t0));
  }
  volatile float sink = y[n / 2];
  (void)sink;
  return best / double(n * sizeof(float));
}

// --- codecs ---------------------------------------------------------------------------------

template <class T>
std::vector<T> random_walk(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> step(0.0, 1.0);
  std::vector<T> v(n);
  double x = 0;
  for (T& e : v) e = T(x += step(gen));
  return v;
}

// The fastest of reps runs (as for the ping-pong: interference only adds time).
template <class F>
double timed(F&& f, int reps, Status& st) {
  double best = 0;
  for (int i = 0; i < reps && st.ok(); ++i) {
    auto t0 = Clock::now();
    st = f();
    const double t = seconds_since(t0);
    best = i == 0 ? t : std::min(best, t);
  }
  return best;
}

double rate(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0; }

#if COMMPRESS_HAVE_GEMM
// Flop/s of a local n^3 product with the BLAS threads the distributed multiply sets (this
// reaches into linalg on purpose: the rate is only useful as the multiply will see it). The
// fastest of a few runs, after a warm-up; the caller keeps the slowest rank's.
template <class T>
double measure_gemm_rate(MPI_Comm comm) {
  constexpr int64_t n = 1024;
  std::vector<T> a(size_t(n * n)), b(size_t(n * n)), c(size_t(n * n));
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(u(gen)), b[i] = T(u(gen));
  linalg::detail::set_blas_threads_for(comm);
  auto run = [&] {
    linalg::detail::local_gemm(linalg::Trans::N, linalg::Trans::N, n, n, n, T(1), a.data(), n,
                               b.data(), n, T(0), c.data(), n);
    return Status{};
  };
  Status st;
  (void)run();  // warm-up: the timed runs below report any failure
  const double best = timed(run, 3, st);
  return best > 0 ? 2.0 * double(n) * double(n) * double(n) / best : 0;
}
#endif

template <class T>
Result<CodecRow> measure_codec(const codec::Codec& c, double rel, size_t n) {
  constexpr codec::Dtype dt = codec::dtype_of<T>();
  const auto a = random_walk<T>(n, 11), b = random_walk<T>(n, 12);
  codec::ErrorBound bound = codec::ErrorBound::lossless();
  if (c.lossy()) {  // one ABS bound for both arrays, so their frames combine
    auto abs = codec::resolve_abs_bound(a.data(), n, dt, codec::ErrorBound::relative(rel));
    if (!abs.ok()) return abs.status();
    bound = codec::ErrorBound::absolute(*abs);
  }
  CodecRow row{std::string(c.name()), dt, c.lossy() ? rel : 0.0};
  const double bytes = double(n * sizeof(T));
  codec::Workspace ws;
  std::vector<std::byte> fa, fb, out;
  std::vector<T> back(n);
  Status st;
  row.compress = rate(bytes, timed([&] { return c.compress(a.data(), n, dt, bound, fa, ws); }, 5, st));
  if (st.ok()) st = c.compress(b.data(), n, dt, bound, fb, ws);
  row.ratio = fa.empty() ? 0 : bytes / double(fa.size());
  if (st.ok())
    row.decompress = rate(bytes, timed([&] { return c.decompress(fa, back.data(), n, dt, ws); }, 5, st));
  if (st.ok() && c.id() == codec::CodecId::szp) {
    row.combine = rate(bytes, timed([&] { return codec::combine(fa, fb, codec::CombineOp::sum, out, ws); }, 3, st));
    if (st.ok())
      row.combine_raw = rate(bytes, timed([&] {
        return codec::combine_raw(b.data(), n, dt, fa, codec::CombineOp::sum, out, ws);
      }, 3, st));
  }
  if (!st.ok()) return Status{st.code(), "profile: " + row.codec + ": " + st.message()};
  return row;
}

// Fixed cost of one call: a tiny array's time beyond what the rate accounts for.
template <class T>
double measure_overhead(const codec::Codec& c, const CodecRow& row) {
  constexpr size_t n = 1024;
  constexpr codec::Dtype dt = codec::dtype_of<T>();
  const auto a = random_walk<T>(n, 13);
  codec::ErrorBound bound = c.lossy() ? codec::ErrorBound::relative(row.rel_bound)
                                      : codec::ErrorBound::lossless();
  codec::Workspace ws;
  std::vector<std::byte> frame;
  std::vector<T> back(n);
  double best_c = INFINITY, best_d = INFINITY;
  for (int i = 0; i < 50; ++i) {
    auto t0 = Clock::now();
    if (!c.compress(a.data(), n, dt, bound, frame, ws).ok()) return 0;
    best_c = std::min(best_c, seconds_since(t0));
    t0 = Clock::now();
    if (!c.decompress(frame, back.data(), n, dt, ws).ok()) return 0;
    best_d = std::min(best_d, seconds_since(t0));
  }
  const double bytes = double(n * sizeof(T));
  const double oc = best_c - (row.compress > 0 ? bytes / row.compress : 0);
  const double od = best_d - (row.decompress > 0 ? bytes / row.decompress : 0);
  return std::max(0.0, 0.5 * (oc + od));
}

// Harmonic mean over the bounds (the mean time per byte), the slowest rank's.
model::CodecRates summarize(const std::vector<CodecRow>& rows, double overhead) {
  model::CodecRates r{rows.front().codec, rows.front().dtype};
  auto hmean = [&](double CodecRow::*field) {
    double inv = 0;
    for (const CodecRow& row : rows) {
      if (row.*field <= 0) return 0.0;
      inv += 1.0 / (row.*field);
    }
    return double(rows.size()) / inv;
  };
  r.compress = hmean(&CodecRow::compress);
  r.decompress = hmean(&CodecRow::decompress);
  r.combine = hmean(&CodecRow::combine);
  r.combine_raw = hmean(&CodecRow::combine_raw);
  r.call_overhead = overhead;
  const CodecRow* typical = &rows.front();
  for (const CodecRow& row : rows)
    if (std::abs(std::log10(row.rel_bound + 1e-300) + 4) < std::abs(std::log10(typical->rel_bound + 1e-300) + 4))
      typical = &row;
  r.typical_ratio = typical->ratio;
  return r;
}

Status measure_codecs(MPI_Comm comm, int rank, const ProfileOptions& o, ProfileReport& rep) {
  for (const std::string& name : o.codecs) {
    auto c = codec::get_codec(name);
    if (!c.ok()) return c.status();
    for (codec::Dtype dt : {codec::Dtype::f32, codec::Dtype::f64}) {
      if (!(*c)->supports(dt)) continue;
      std::vector<CodecRow> rows;
      std::vector<double> bounds = (*c)->lossy() ? o.rel_bounds : std::vector<double>{0.0};
      for (double rel : bounds) {
        auto row = dt == codec::Dtype::f32 ? measure_codec<float>(**c, rel, o.codec_elements)
                                           : measure_codec<double>(**c, rel, o.codec_elements);
        int ok = row.ok() ? 1 : 0, all_ok = 0;
        PROFILE_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
        if (!row.ok()) return row.status();
        if (!all_ok) return {ErrorCode::internal, "profile: codec " + name + " failed on another rank"};
        double v[4] = {row->compress, row->decompress, row->combine, row->combine_raw};
        PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MIN, comm));
        row->compress = v[0], row->decompress = v[1], row->combine = v[2], row->combine_raw = v[3];
        say(o, rank, "  " + name + " " + codec::dtype_name(dt) + " rel " + std::to_string(rel) +
                         ": ratio " + std::to_string(row->ratio) + ", compress " +
                         std::to_string(row->compress / 1e9) + " GB/s, decompress " +
                         std::to_string(row->decompress / 1e9) + " GB/s");
        rows.push_back(*row);
      }
      double overhead = dt == codec::Dtype::f32 ? measure_overhead<float>(**c, rows.front())
                                                : measure_overhead<double>(**c, rows.front());
      PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &overhead, 1, MPI_DOUBLE, MPI_MAX, comm));
      rep.profile.codecs.push_back(summarize(rows, overhead));
      rep.codec_rows.insert(rep.codec_rows.end(), rows.begin(), rows.end());
    }
  }
  return {};
}

// --- the wait of an oversubscribed step ---------------------------------------------------

// MachineProfile::oversubscribed_wait: rounds of real codec work (szp compresses 64 Ki f32)
// and one 8-byte exchange with both ring neighbours on every rank at once, against the same
// rounds without the exchange. Beyond alpha, what a round adds is the wait for peers to get a
// core (ranks that share one wait for each other unless MPI yields it). The fastest of three
// runs of each (a preemption only ever adds); the slowest rank's.
Result<double> measure_step_wait(MPI_Comm comm, int rank, int size, double alpha) {
  const codec::Codec* szp = codec::find_codec("szp");
  if (!szp) return -1.0;  // not measured: the model falls back to a scheduler slice
  constexpr size_t n = size_t{64} << 10;
  constexpr int kRounds = 30;
  const auto data = random_walk<float>(n, 21);
  auto eb = codec::resolve_abs_bound(data.data(), n, codec::Dtype::f32,
                                     codec::ErrorBound::relative(1e-4));
  if (!eb.ok()) return eb.status();
  codec::Workspace ws;
  std::vector<std::byte> frame;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  auto per_round = [&](bool exchange) -> Result<double> {
    double best = INFINITY;
    for (int run = 0; run < 3; ++run) {
      PROFILE_MPI(MPI_Barrier(comm));
      const auto t0 = Clock::now();
      for (int k = 0; k < kRounds; ++k) {
        COMMPRESS_RETURN_IF_ERROR(szp->compress(data.data(), n, codec::Dtype::f32,
                                                codec::ErrorBound::absolute(*eb), frame, ws));
        double token = k, got = 0;
        if (exchange)
          PROFILE_MPI(MPI_Sendrecv(&token, 1, MPI_DOUBLE, right, kTag, &got, 1, MPI_DOUBLE, left,
                                   kTag, comm, MPI_STATUS_IGNORE));
      }
      double t = seconds_since(t0) / kRounds;
      PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
      best = std::min(best, t);
    }
    return best;
  };
  auto alone = per_round(false);
  if (!alone.ok()) return alone.status();
  auto with = per_round(true);
  if (!with.ok()) return with.status();
  return std::max(0.0, *with - *alone - alpha);
}

// --- nodes ----------------------------------------------------------------------------------

Status node_layout(MPI_Comm comm, int rank, int size, ProfileReport& rep) {
  MPI_Comm node;
  PROFILE_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int node_id = rank;
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &node_id, 1, MPI_INT, MPI_MIN, node));
  MPI_Comm_free(&node);
  std::vector<int> ids(size_t(size), 0);
  PROFILE_MPI(MPI_Allgather(&node_id, 1, MPI_INT, ids.data(), 1, MPI_INT, comm));
  std::vector<int> distinct = ids;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  rep.nodes = int(distinct.size());
  rep.pair_shares_node = size >= 2 && ids[0] == ids[1];
  bool even = true;
  for (int id : distinct) even = even && std::count(ids.begin(), ids.end(), id) == size / rep.nodes;
  rep.profile.ranks_per_node = even && size % rep.nodes == 0 ? size / rep.nodes : 0;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  rep.host.assign(host, size_t(len));
  return {};
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

}  // namespace

Result<ProfileReport> measure_profile(MPI_Comm comm, const ProfileOptions& opts) {
  int rank = 0, size = 1;
  PROFILE_MPI(MPI_Comm_rank(comm, &rank));
  PROFILE_MPI(MPI_Comm_size(comm, &size));
  if (size < 2)
    return Status{ErrorCode::invalid_argument,
                  "profile: needs at least 2 ranks (run it under mpirun -np 2)"};
  if (!(opts.max_message_bytes >= 8 && opts.max_message_bytes <= double(INT32_MAX)))
    return Status{ErrorCode::invalid_argument, "profile: the largest message must be 8 B .. 2 GiB"};
  ProfileReport rep;
  rep.ranks = size;
  COMMPRESS_RETURN_IF_ERROR(node_layout(comm, rank, size, rep));
  say(opts, rank, "ping-pong between ranks 0 and 1 (8 B .. " +
                      std::to_string(size_t(opts.max_message_bytes)) + " B)");
  auto pts = sweep(comm, rank, opts);
  if (!pts.ok()) return pts.status();
  rep.pingpong = pts->one_way;
  model::Link link = model::fit_link(rep.pingpong, opts.eager_limit);
  link.overlap_bytes = pts->overlap_bytes;
  say(opts, rank,
      "  transfers overlap computation up to " + std::to_string(size_t(link.overlap_bytes)) +
          " B messages");
  rep.profile.network = link;
  if (rep.pair_shares_node) rep.profile.intra_node = link;
  say(opts, rank, "gamma: local sums");
  double gamma = measure_gamma();
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &gamma, 1, MPI_DOUBLE, MPI_MAX, comm));
  rep.profile.gamma = gamma;
#if COMMPRESS_HAVE_GEMM  // without the multiply the profile keeps no BLAS rates
  say(opts, rank, "local dgemm / sgemm rates (1024^3 on every rank at once)");
  double flops[2] = {measure_gemm_rate<double>(comm), measure_gemm_rate<float>(comm)};
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, flops, 2, MPI_DOUBLE, MPI_MIN, comm));
  rep.profile.gemm_flops_f64 = flops[0];
  rep.profile.gemm_flops_f32 = flops[1];
  rep.blas = linalg::blas_info().describe();
  say(opts, rank, "  dgemm " + std::to_string(flops[0] / 1e9) + " GFLOP/s, sgemm " +
                      std::to_string(flops[1] / 1e9) + " GFLOP/s per rank");
#endif
  rep.profile.threads_per_rank = omp_get_max_threads();
  say(opts, rank, "codec rates (" + std::to_string(rep.profile.threads_per_rank) +
                      " thread(s) per rank, all ranks at once)");
  double over = detail::local_oversubscription();  // the rates will include this sharing
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &over, 1, MPI_DOUBLE, MPI_MAX, comm));
  rep.profile.codec_oversubscription = over;
  say(opts, rank, "the wait of a message step while every rank computes");
  auto wait = measure_step_wait(comm, rank, size, link.eager.alpha);
  if (!wait.ok()) return wait.status();
  rep.profile.oversubscribed_wait = *wait;
  if (*wait >= 0)
    say(opts, rank,
        "  " + std::to_string(*wait * 1e6) + " us per step at " + std::to_string(over) +
            " ranks per core");
  COMMPRESS_RETURN_IF_ERROR(measure_codecs(comm, rank, opts, rep));
  using Measure = Result<model::MpiAgainstPlain> (*)(MPI_Comm, double);
  using model::MachineProfile;
  const std::pair<Measure, model::MpiAgainstPlain MachineProfile::*> against_plain[] = {
      {measure_reduce_scatter_mpi, &MachineProfile::reduce_scatter_mpi},
      {measure_bcast_mpi, &MachineProfile::bcast_mpi},
      {measure_allreduce_mpi, &MachineProfile::allreduce_mpi},
      {measure_allgather_mpi, &MachineProfile::allgather_mpi},
      {measure_bcast_window_mpi, &MachineProfile::bcast_window_mpi}};
  say(opts, rank,
      "MPI's own operations against commpress's plain ones (the shared window on one node only)");
  for (auto [measure, member] : against_plain) {
    auto m = measure(comm, opts.max_message_bytes);
    if (!m.ok()) return m.status();
    rep.profile.*member = *m;
  }
  rep.profile.origin = "commpress profile, " + today() + ": " + std::to_string(size) +
                       " ranks on " + std::to_string(rep.nodes) + " node(s) (rank 0 on " +
                       rep.host + "), " + std::to_string(rep.profile.threads_per_rank) +
                       " thread(s) per rank; ranks 0 and 1 " +
                       (rep.pair_shares_node ? "share a node" : "on different nodes");
  return rep;
}

}  // namespace commpress::profile
