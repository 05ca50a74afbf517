#include "pmpi/comm_policy.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commpress/nonblocking.hpp"
#include "pmpi/bypass.hpp"
#include "pmpi/policy_agreement.hpp"

namespace commpress::pmpi {

namespace {

bool started = false;
Policy env_policy;
int keyval = MPI_KEYVAL_INVALID;
// Until a communicator gets its own policy, lookups skip the attribute.
std::atomic<bool> any_comm_policy{false};

int copy_policy(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<Policy**>(out) = new Policy(*static_cast<Policy*>(in));
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_policy(MPI_Comm, int, void* value, void*) {
  delete static_cast<Policy*>(value);
  return MPI_SUCCESS;
}

std::optional<std::string> info_value(MPI_Info info, const char* key) {
  int length = 0, flag = 0;
  PMPI_Info_get_valuelen(info, key, &length, &flag);
  if (!flag) return std::nullopt;
  std::string v(size_t(length) + 1, '\0');
  PMPI_Info_get(info, key, length + 1, v.data(), &flag);
  v.resize(size_t(length));
  return v;
}

// COMMPRESS_INIT_TIMEOUT: how long MPI_Init waits for every rank to join the agreement.
double init_timeout_seconds() {
  const char* v = std::getenv("COMMPRESS_INIT_TIMEOUT");
  char* end = nullptr;
  const double t = v && *v ? std::strtod(v, &end) : 0;
  return t > 0 && end && *end == '\0' ? t : 60;
}

}  // namespace

namespace detail {
std::atomic<bool> may_intercept_flag{false};
}

namespace {

// What the ranks agree on at MPI_Init: the policy, and where it is on, whether the nonblocking
// collectives run on progress threads (MPI_THREAD_MULTIPLE, nonblocking_calls.cpp): ranks that
// differ there would split one call between commpress and PMPI_I*.
std::string agreed_text(const Result<Policy>& p) {
  if (!p.ok()) return p.status().message();
  if (!p->active) return p->text();
  return p->text() + progress_note();
}

}  // namespace

// With MPI_THREAD_MULTIPLE only `inline` leaves the threads out, and `inline` keeps the level
// below it too.
std::string progress_note() {
  if (comm::progress_thread_available()) return " (progress threads)";
  return comm::progress_inline() ? " (COMMPRESS_PROGRESS=inline: no progress threads)"
                                     : " (no MPI_THREAD_MULTIPLE: no progress threads)";
}

Status start_policies() {
  auto p = environment_policy();
  if (p.ok() && p->active && !comm::progress_mode_status().ok()) p = comm::progress_mode_status();
  COMMPRESS_RETURN_IF_ERROR(
      agree_policy(MPI_COMM_WORLD, agreed_text(p), p.ok(), init_timeout_seconds()));
  env_policy = *p;
  PMPI_Comm_create_keyval(copy_policy, delete_policy, &keyval, nullptr);
  started = true;
  detail::may_intercept_flag.store(env_policy.active, std::memory_order_relaxed);
  return {};
}

bool policies_started() { return started; }
const Policy& environment_policy_in_force() { return env_policy; }

const Policy* policy_for(MPI_Comm comm) {
  if (!started) return nullptr;
  if (any_comm_policy.load(std::memory_order_relaxed)) {
    void* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(comm, keyval, &value, &flag);
    if (flag) return static_cast<const Policy*>(value);
  }
  return &env_policy;
}

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

// MPI_Comm_set_info is collective, so every rank comes here and can agree on the new policy.
// A mismatch or an invalid value fails on every rank: the message names the ranks and values,
// and the communicator's error handler is called (MPI_ERRORS_ARE_FATAL by default).
extern "C" int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const int rc = PMPI_Comm_set_info(comm, info);
  if (rc != MPI_SUCCESS || bypassing() || !started || info == MPI_INFO_NULL) return rc;
  Bypass inside;
  const Policy* current = policy_for(comm);
  bool any_key = false;
  std::vector<std::pair<std::string, std::string>> values;
  for (const char* k : {"commpress_bound", "commpress_codec", "commpress_min_bytes", "commpress_ops"}) {
    if (auto v = info_value(info, k)) {
      any_key = true;
      values.push_back({k, *v});
    }
  }
  auto parsed = parse_policy(
      [&](const std::string& name) -> const char* {
        for (const auto& [k, v] : values)
          if (k == name) return v.c_str();
        return nullptr;
      },
      "commpress_", true, *current);
  // Ranks without commpress keys agree too: a key on one rank only is a mismatch.
  const std::string text = parsed.ok() ? parsed->text() : parsed.status().message();
  const commpress::Status agreed = agree_policy(comm, text, parsed.ok());
  if (!agreed.ok()) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    std::fprintf(stderr, "commpress_mpi[%d]: MPI_Comm_set_info: %s\n", rank,
                 agreed.message().c_str());
    // The handler runs (MPI_ERRORS_ARE_FATAL aborts); under MPI_ERRORS_RETURN the code
    // comes back, as MPI returns it.
    PMPI_Comm_call_errhandler(comm, MPI_ERR_INFO_VALUE);
    return MPI_ERR_INFO_VALUE;
  }
  if (!any_key) return rc;
  PMPI_Comm_set_attr(comm, keyval, new Policy(*parsed));
  any_comm_policy.store(true, std::memory_order_relaxed);
  if (parsed->active) detail::may_intercept_flag.store(true, std::memory_order_relaxed);
  return rc;
}
