#include "pmpi/call_log.hpp"

#include <mpi.h>

#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "pmpi/debug_flag.hpp"
#include "pmpi/intercept.hpp"  // type_name, op_text

namespace commpress::pmpi {

namespace {

constexpr int kOps = std::bit_width(unsigned(kOpBits));  // one per OpBit
enum Counter { kCalls, kPassed, kRaw, kSent, kSeconds, kCounters };

int op_index(unsigned op) {
  for (int i = 0; i < kOps; ++i)
    if (op == (1u << i)) return i;
  return 0;
}

struct Log {
  std::mutex mutex;
  std::array<std::array<double, kCounters>, kOps> counters{};  // kPassed from `passed` below
  // Every small call under an active policy counts here: no lock on that path.
  std::array<std::atomic<uint64_t>, kOps> passed{};
  std::vector<std::string> json_calls;  // rank 0 only, capped
};

Log& log() {
  static Log l;
  return l;
}

const char* json_path() {
  static const char* path = [] {
    const char* v = std::getenv("COMMPRESS_DEBUG_JSON");
    return v && *v ? v : nullptr;
  }();
  return path;
}

constexpr size_t kMaxJsonCalls = 10000;

void record_passed_line(const CallFacts& call, const std::string& reason);

int world_rank() {
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Set on a progress thread: the blocking wrapper it runs serves a nonblocking call.
thread_local bool nonblocking_thread = false;

std::string describe(const CallFacts& c) {
  std::string name = c.mpi_name;
  if (nonblocking_thread && name.size() > 4 && name.starts_with("MPI_")) {
    name[4] = char(std::tolower(static_cast<unsigned char>(name[4])));  // MPI_Iallreduce
    name.insert(4, "I");
  }
  std::string s = name + " " + std::to_string(c.count) + " x " + type_name(c.type);
  if (c.reduction != MPI_OP_NULL) s += std::string(" ") + op_text(c.reduction);
  if (c.peer >= 0) s += (c.received ? " from rank " : " to rank ") + std::to_string(c.peer);
  return s;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

void log_as_nonblocking() { nonblocking_thread = true; }

void record_intercepted(const CallFacts& call, const comm::Report& r, const Policy& policy,
                        double seconds) {
  Log& l = log();
  if (!call.received) {  // a message is counted once, at its sender
    std::lock_guard<std::mutex> lock(l.mutex);
    auto& c = l.counters[size_t(op_index(call.op))];
    c[kCalls] += 1;
    c[kRaw] += double(r.raw_bytes);
    c[kSent] += double(r.bytes_sent);
    c[kSeconds] += seconds;
    if (json_path() && l.json_calls.size() < kMaxJsonCalls && world_rank() == 0) {
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "{\"call\": %s, \"algorithm\": \"%s\", \"codec\": %s, \"raw_bytes\": %llu, "
                    "\"bytes_sent\": %llu, \"guaranteed_abs_bound\": %.17g, \"policy_bound\": "
                    "%s, \"seconds\": %.9g}",
                    json_string(describe(call)).c_str(), comm::algorithm_name(r.algorithm),
                    json_string(r.codec).c_str(), (unsigned long long)r.raw_bytes,
                    (unsigned long long)r.bytes_sent, r.guaranteed_abs_bound,
                    json_string(policy.bound_text()).c_str(), seconds);
      l.json_calls.push_back(buf);
    }
  }
  if (!debug_enabled()) return;
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::fprintf(stderr,
               "commpress_mpi[%d/%d]: %s: %s codec %s, %llu -> %llu bytes (%.2fx), bound %.6g "
               "(%s), %.6f s\n",
               world_rank(), size, describe(call).c_str(), comm::algorithm_name(r.algorithm),
               r.codec.c_str(), (unsigned long long)r.raw_bytes,
               (unsigned long long)r.bytes_sent, r.ratio(), r.guaranteed_abs_bound,
               policy.bound_text().c_str(), seconds);
}

void record_passed(const CallFacts& call, const std::string& reason) {
  log().passed[size_t(op_index(call.op))].fetch_add(1, std::memory_order_relaxed);
  if (debug_enabled()) record_passed_line(call, reason);
}

namespace {

void record_passed_line(const CallFacts& call, const std::string& reason) {
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::fprintf(stderr, "commpress_mpi[%d/%d]: %s: passed through (%s)\n", world_rank(), size,
               describe(call).c_str(), reason.c_str());
}

}  // namespace

void record_small(const CallFacts& call, size_t min_bytes) {
  log().passed[size_t(op_index(call.op))].fetch_add(1, std::memory_order_relaxed);
  if (debug_enabled()) record_passed_line(call, "below COMMPRESS_MIN_BYTES=" + std::to_string(min_bytes));
}

void finish_call_log(const std::string& policy_text) {
  Log& l = log();
  std::array<std::array<double, kCounters>, kOps> sum{};
  {
    std::lock_guard<std::mutex> lock(l.mutex);
    for (int i = 0; i < kOps; ++i) l.counters[size_t(i)][kPassed] = double(l.passed[size_t(i)].load());
    PMPI_Reduce(l.counters.data(), sum.data(), kOps * kCounters, MPI_DOUBLE, MPI_SUM, 0,
                MPI_COMM_WORLD);
  }
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) return;
  std::array<double, kCounters> total{};
  for (const auto& c : sum)
    for (int k = 0; k < kCounters; ++k) total[size_t(k)] += c[size_t(k)];
  if (debug_enabled()) {
    std::fprintf(stderr,
                 "commpress_mpi: summary over %d ranks (policy %s): %.0f calls run by commpress, %.0f "
                 "passed through; %.0f bytes sent instead of %.0f (%.0f saved); %.6f s in "
                 "commpress (sum over ranks)\n",
                 size, policy_text.c_str(), total[kCalls], total[kPassed], total[kSent],
                 total[kRaw], total[kRaw] - total[kSent], total[kSeconds]);
    for (int i = 0; i < kOps; ++i) {
      const auto& c = sum[size_t(i)];
      if (c[kCalls] + c[kPassed] == 0) continue;
      std::fprintf(stderr,
                   "commpress_mpi:   %-20s %.0f run by commpress, %.0f passed, %.0f -> %.0f bytes, "
                   "%.6f s\n",
                   op_bit_name(1u << i), c[kCalls], c[kPassed], c[kRaw], c[kSent], c[kSeconds]);
    }
  }
  const char* path = json_path();
  if (!path) return;
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "commpress_mpi: cannot write COMMPRESS_DEBUG_JSON=%s\n", path);
    return;
  }
  auto counters = [&](const std::array<double, kCounters>& c) {
    std::fprintf(f,
                 "{\"calls\": %.0f, \"passed\": %.0f, \"raw_bytes\": %.0f, \"bytes_sent\": %.0f, "
                 "\"bytes_saved\": %.0f, \"seconds\": %.9g}",
                 c[kCalls], c[kPassed], c[kRaw], c[kSent], c[kRaw] - c[kSent], c[kSeconds]);
  };
  std::fprintf(f, "{\n  \"ranks\": %d,\n  \"policy\": %s,\n  \"total\": ", size,
               json_string(policy_text).c_str());
  counters(total);
  std::fprintf(f, ",\n  \"operations\": {");
  bool first = true;
  for (int i = 0; i < kOps; ++i) {
    std::fprintf(f, "%s\n    \"%s\": ", first ? "" : ",", op_bit_name(1u << i));
    counters(sum[size_t(i)]);
    first = false;
  }
  std::fprintf(f, "\n  },\n  \"rank0_calls\": [");
  for (size_t i = 0; i < l.json_calls.size(); ++i)
    std::fprintf(f, "%s\n    %s", i ? "," : "", l.json_calls[i].c_str());
  std::fprintf(f, "\n  ]\n}\n");
  std::fclose(f);
}

}  // namespace commpress::pmpi
