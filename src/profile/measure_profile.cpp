#include "profile/measure_profile.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "comm/probe/mpi_against_plain.hpp"
#include "comm/probe/codec_rates.hpp"
#include "comm/probe/overlap_limit.hpp"
#include "comm/probe/ping_pong.hpp"
#include "comm/probe/step_wait.hpp"
#include "comm/probe/sum_rate.hpp"
#include "comm/probe/timing.hpp"
#include "comm/select.hpp"
#include "comm/session/codec_threads.hpp"
#include "commpress/config.h"
#if COMMPRESS_HAVE_GEMM
#include "commpress/blas_info.hpp"
#include "linalg/gemm/local_gemm_rate.hpp"
#endif

namespace commpress::profile {

// The profiler is a client of comm: it times comm's own calls.
using namespace comm;
using namespace comm::probe;

namespace {

#define PROFILE_MPI(call)                                                                 \
  do {                                                                                    \
    if (int rc_ = (call); rc_ != MPI_SUCCESS)                                             \
      return Status{ErrorCode::mpi, std::string("profile: ") + #call + " failed (" + \
                                             std::to_string(rc_) + ")"};                  \
  } while (0)

void say(const ProfileOptions& o, int rank, const std::string& line) {
  if (rank == 0 && o.progress) o.progress(line);
}

// --- ping-pong ------------------------------------------------------------------------------

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
      // A time budget per size rather than a count: fast links average over many round
      // trips, slow ones are not measured for long; no early stop on a floor (the probe's).
      auto t = ping_pong(pair, rank, buf, int(m), FloorBudget{3, 200, 0.05, /*agree=*/-1});
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
    auto limit = overlap_limit(pair, rank, buf, out.one_way, 5, INFINITY);
    MPI_Comm_free(&pair);
    if (!limit.ok()) return limit.status();
    out.overlap_bytes = *limit;
  }
  COMMPRESS_RETURN_IF_ERROR(wait_for_all(comm, rank >= 2 ? Pace::compute : Pace::test));
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

// --- codecs ---------------------------------------------------------------------------------


template <class T>
Result<CodecRow> measure_on_walks(const codec::Codec& c, double rel, size_t n) {
  const auto a = random_walk<T>(n, 11), b = random_walk<T>(n, 12);
  auto row = measure_codec<T>(c, rel, a.data(), b.data(), n, 5);
  if (!row.ok()) return Status{row.status().code(), "profile: " + row.status().message()};
  return row;
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
        auto row = dt == codec::Dtype::f32 ? measure_on_walks<float>(**c, rel, o.codec_elements)
                                           : measure_on_walks<double>(**c, rel, o.codec_elements);
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
      double overhead = dt == codec::Dtype::f32 ? measure_call_overhead<float>(**c, rows.front())
                                                : measure_call_overhead<double>(**c, rows.front());
      PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &overhead, 1, MPI_DOUBLE, MPI_MAX, comm));
      rep.profile.codecs.push_back(summarize(rows, overhead));
      rep.codec_rows.insert(rep.codec_rows.end(), rows.begin(), rows.end());
    }
  }
  return {};
}

// --- the wait of an oversubscribed step ---------------------------------------------------

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
  double gamma = measure_gamma(size_t{8} << 20, 5);
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &gamma, 1, MPI_DOUBLE, MPI_MAX, comm));
  rep.profile.gamma = gamma;
#if COMMPRESS_HAVE_GEMM  // without the multiply the profile keeps no BLAS rates
  say(opts, rank, "local dgemm / sgemm rates (1024^3 on every rank at once)");
  double flops[2] = {linalg::detail::local_gemm_rate<double>(comm, 1024, 3),
                     linalg::detail::local_gemm_rate<float>(comm, 1024, 3)};
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, flops, 2, MPI_DOUBLE, MPI_MIN, comm));
  rep.profile.gemm_flops_f64 = flops[0];
  rep.profile.gemm_flops_f32 = flops[1];
  rep.blas = linalg::blas_info().describe();
  say(opts, rank, "  dgemm " + std::to_string(flops[0] / 1e9) + " GFLOP/s, sgemm " +
                      std::to_string(flops[1] / 1e9) + " GFLOP/s per rank");
#endif
  // The OpenMP team a collective's codec work gets, as the zero-configuration probe measures
  // with: OpenMP's default of a thread per core in every rank spins in its barriers where
  // ranks share cores, far below the rate the collectives' codec work runs at.
  comm::detail::CodecThreads share;
  rep.profile.threads_per_rank = omp_get_max_threads();
  say(opts, rank, "codec rates (" + std::to_string(rep.profile.threads_per_rank) +
                      " thread(s) per rank, all ranks at once)");
  double over = detail::local_oversubscription();  // the rates will include this sharing
  PROFILE_MPI(MPI_Allreduce(MPI_IN_PLACE, &over, 1, MPI_DOUBLE, MPI_MAX, comm));
  rep.profile.codec_oversubscription = over;
  say(opts, rank, "the wait of a message step while every rank computes");
  auto wait = measure_step_wait(comm, link.eager.alpha, 30, 3);
  if (!wait.ok()) return wait.status();
  rep.profile.oversubscribed_wait = *wait;
  if (*wait >= 0)
    say(opts, rank,
        "  " + std::to_string(*wait * 1e6) + " us per step at " + std::to_string(over) +
            " ranks per core");
  COMMPRESS_RETURN_IF_ERROR(measure_codecs(comm, rank, opts, rep));
  using Measure = Result<model::MpiAgainstPlain> (*)(MPI_Comm, double, AgainstPlainRounds);
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
    auto m = measure(comm, opts.max_message_bytes, AgainstPlainRounds{});
    if (!m.ok()) return m.status();
    rep.profile.*member = *m;
  }
  rep.profile.origin = "commpress profile, " + today_utc() + ": " + std::to_string(size) +
                       " ranks on " + std::to_string(rep.nodes) + " node(s) (rank 0 on " +
                       rep.host + "), " + std::to_string(rep.profile.threads_per_rank) +
                       " thread(s) per rank; ranks 0 and 1 " +
                       (rep.pair_shares_node ? "share a node" : "on different nodes");
  return rep;
}

}  // namespace commpress::profile
