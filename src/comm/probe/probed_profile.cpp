#include "comm/probe/probed_profile.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "comm/probe/profile_cache.hpp"
#include "comm/probe/timing.hpp"
#include "comm/profile_io.hpp"
#include "comm/select.hpp"
#include "comm/session/node_key.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/wire.hpp"
#include "commpress/version.h"
#include "comm/session/comm_keyval.hpp"

namespace commpress::comm::probe {

namespace {

std::atomic<int> g_probed{0}, g_reused{0};
// The attribute's value: the kept profile of the communicator, or null where every rank was
// given one.
int keyval() {
  static int key = detail::new_comm_keyval();
  return key;
}

bool debug() {
  const char* d = std::getenv("COMMPRESS_DEBUG");
  return d && *d && std::strcmp(d, "0") != 0;
}

void say(int rank, const std::string& line) {
  if (rank == 0 && debug()) std::fprintf(stderr, "commpress: probe: %s\n", line.c_str());
}

struct Layout {
  std::vector<int> node_of_rank;
  std::string key;
};

// Nodes by the session's node keys (host name and boot id); the key by host names, ranks per
// node, threads per rank and the library version and build.
Result<Layout> layout(MPI_Comm comm, int size) {
  constexpr int kName = MPI_MAX_PROCESSOR_NAME;
  double node = comm::detail::node_key();
  char name[kName] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<double> nodes(size_t(size), 0);
  std::vector<char> names(size_t(size) * kName);
  COMMPRESS_MPI(MPI_Allgather(&node, 1, MPI_DOUBLE, nodes.data(), 1, MPI_DOUBLE, comm));
  COMMPRESS_MPI(MPI_Allgather(name, kName, MPI_CHAR, names.data(), kName, MPI_CHAR, comm));
  Layout out;
  std::vector<double> distinct = nodes;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (double n : nodes)
    out.node_of_rank.push_back(int(std::lower_bound(distinct.begin(), distinct.end(), n) -
                                   distinct.begin()));
  std::map<std::string, int> per_host;
  for (int r = 0; r < size; ++r)
    ++per_host[std::string(names.data() + size_t(r) * kName,
                           strnlen(names.data() + size_t(r) * kName, kName))];
  int threads = omp_get_max_threads();
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &threads, 1, MPI_INT, MPI_MAX, comm));
  for (const auto& [host, ranks] : per_host) out.key += host + ":" + std::to_string(ranks) + ",";
  out.key += " threads " + std::to_string(threads) + ", commpress " COMMPRESS_VERSION_STRING;
  if (const std::string build = library_build_id(); !build.empty()) out.key += " build " + build;
  // The same hosts can be joined by other transports (shared memory, or TCP forced through
  // MCA parameters, as scripts/netsim does): what selects them is part of the layout.
  for (const char* var : {"OMPI_MCA_pml", "OMPI_MCA_btl", "OMPI_MCA_mtl",
                          "OMPI_MCA_btl_tcp_if_include", "UCX_TLS", "FI_PROVIDER"})
    if (const char* v = std::getenv(var)) out.key += std::string(", ") + var + "=" + v;
  return out;
}

Status bcast_text(MPI_Comm comm, std::string& text) {
  unsigned long long n = text.size();
  COMMPRESS_MPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
  text.resize(size_t(n));
  if (n) COMMPRESS_MPI(MPI_Bcast(text.data(), int(n), MPI_CHAR, 0, comm));
  return {};
}

enum class CachePolicy { use, refresh, off };

CachePolicy cache_policy() {
  const char* v = std::getenv("COMMPRESS_PROBE_CACHE");
  if (!v) return CachePolicy::use;
  if (std::strcmp(v, "off") == 0) return CachePolicy::off;
  if (std::strcmp(v, "refresh") == 0) return CachePolicy::refresh;
  return CachePolicy::use;
}

// Steps 2-4 of the header, on the private communicator.
Result<const model::MachineProfile*> settle(MPI_Comm comm, const ProbeCall& call) {
  int rank = 0, size = 1;
  COMMPRESS_MPI(MPI_Comm_rank(comm, &rank));
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  auto lay = layout(comm, size);
  if (!lay.ok()) return lay.status();
  const CachePolicy policy = cache_policy();  // rank 0's decides
  const std::string dir = cache_directory();
  const std::string path = dir.empty() ? "" : cache_file(dir, lay->key);
  std::string text;
  if (rank == 0 && policy == CachePolicy::use && !path.empty()) {
    CacheRead got = read_cached_profile(path, lay->key);
    if (got.profile) text = profile_to_json(*got.profile);
    else say(rank, "no cached profile used: " + got.why_not);
  }
  COMMPRESS_RETURN_IF_ERROR(bcast_text(comm, text));
  if (!text.empty()) {
    ++g_reused;
    say(rank, "reused " + path + " (" + lay->key + ")");
  } else {
    const auto t0 = Clock::now();
    auto m = quick_probe(comm, lay->node_of_rank, call);
    if (!m.ok()) return m.status();
    ++g_probed;
    if (rank == 0) {
      text = profile_to_json(m->profile);
      say(rank, "measured in " + std::to_string(seconds_since(t0)) + " s (" + m->phases +
                    "; " + lay->key + ")");
      if (policy != CachePolicy::off && !path.empty()) {
        const std::string err = write_cached_profile(path, lay->key, m->profile);
        say(rank, err.empty() ? "cached at " + path : "not cached: " + err);
      }
    }
    COMMPRESS_RETURN_IF_ERROR(bcast_text(comm, text));
  }
  auto m = profile_from_json(text);
  if (!m.ok()) return m.status();
  return comm::detail::keep_probed_profile(std::move(*m));
}

Status first_use(MPI_Comm user_comm, const ProbeCall& call) {
  auto comm = comm::detail::private_comm(user_comm);
  if (!comm.ok()) return comm.status();
  exempt_from_probe(*comm);
  int wants = comm::detail::machine_profile_given() ? 0 : 1;
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &wants, 1, MPI_INT, MPI_MAX, *comm));
  const model::MachineProfile* kept = nullptr;
  if (wants) {
    auto got = settle(*comm, call);
    if (!got.ok()) return got.status();
    kept = *got;
  }
  COMMPRESS_MPI(MPI_Comm_set_attr(user_comm, keyval(), const_cast<model::MachineProfile*>(kept)));
  comm::detail::use_probed_profile(kept);
  return {};
}

}  // namespace

void use_probed_profile(MPI_Comm user_comm, const ProbeCall& call) {
  if (user_comm == MPI_COMM_NULL) return;
  void* attr = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(user_comm, keyval(), &attr, &found) == MPI_SUCCESS && found) {
    if (attr) comm::detail::use_probed_profile(static_cast<const model::MachineProfile*>(attr));
    return;
  }
  const Status st = first_use(user_comm, call);
  if (!st.ok()) std::fprintf(stderr, "commpress: probing the machine failed: %s\n",
                             st.to_string().c_str());
}

void exempt_from_probe(MPI_Comm comm) {
  // The null attribute reads as "every rank was given a profile": the profile in force stays.
  MPI_Comm_set_attr(comm, keyval(), nullptr);
}

ProbeCall probe_call(const Options& opts, const void* data, size_t count, Dtype dtype) {
  // Where Auto weighs the codec modes, the entropy mode's rates besides szp's (always measured).
  const std::string codec = comm::detail::weighs_codec_modes(opts)
                                ? comm::detail::kEntropyMode
                                : comm::detail::codec_choice(opts, dtype);
  ProbeCall call{data, data ? count : 0, dtype, codec};
  if (opts.bound.mode == codec::BoundMode::rel && opts.bound.value > 0)
    call.rel_bound = opts.bound.value;
  return call;
}

ProbeCounts probe_counts() { return {g_probed.load(), g_reused.load()}; }

}  // namespace commpress::comm::probe
