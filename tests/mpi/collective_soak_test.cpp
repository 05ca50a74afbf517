// A soak: 10,000 small collectives of every kind, exact, lossy and through shared memory, on
// communicators created (MPI_Comm_dup, MPI_Comm_split) and freed as they go, three calls in
// twenty failing (counts or operations that disagree, a count no buffer has). What a process
// holds must not grow with the calls: resident memory, open files and shared-memory segments
// (named in /dev/shm or mapped) are compared after a warm-up and at the end.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "mpi/collective_calls.hpp"
#include "mpi/comm_test_support.hpp"

namespace commpress::testing::comm {
namespace {

// AddressSanitizer holds freed memory back in quarantine, so resident memory grows with
// every call there whatever commpress does; its build checks the rest.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRssMeaningful = false;
#elif defined(__has_feature)
constexpr bool kRssMeaningful = !__has_feature(address_sanitizer);
#else
constexpr bool kRssMeaningful = true;
#endif

constexpr int kCalls = 10000;
constexpr int kWarmup = 1000;
constexpr int kCallsPerComm = 50;
constexpr size_t kCount = 64;

struct Holdings {
  long rss_kib = 0;
  long open_files = 0;
  long shm_named = 0;   // /dev/shm entries this process's commpress named
  long shm_mapped = 0;  // commpress segments mapped into this process
};

long entries(const char* dir, const std::string& prefix) {
  long n = 0;
  if (DIR* d = opendir(dir)) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0 && e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

Holdings holdings() {
  Holdings h;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) h.rss_kib = std::stol(line.substr(6));
  h.open_files = entries("/proc/self/fd", "");
  h.shm_named = entries("/dev/shm", "commpress-" + std::to_string(getpid()) + "-");
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/commpress-") != std::string::npos) ++h.shm_mapped;
  return h;
}

// Call k: which operation, under which options, and how (if at all) it goes wrong.
enum class Fault { none, count, operation, huge };

Fault fault_of(int k) {
  switch (k % 20) {
    case 3:
      return Fault::count;
    case 9:
      return Fault::operation;
    case 15:
      return Fault::huge;
    default:
      return Fault::none;
  }
}

bool offers_window(const std::string& op) {
  return op == "allreduce" || op == "allgather" || op == "bcast";
}

MPI_Comm next_comm(int generation) {
  MPI_Comm comm;
  if (generation % 2)
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  else  // reversed rank order, so the roots and blocks land elsewhere
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - world_rank(), &comm);
  return comm;
}

TEST(CollectiveSoak, HoldingsStayFlat) {
  const auto ops = cpp_collectives();
  const auto options = option_sets();
  const int p = world_size();
  const bool last = world_rank() == p - 1;
  Bytes send = make_bytes(Dtype::f32, kCount * size_t(p), 3), recv(kCount * size_t(p) * 4);
  cc::Options window;
  window.algorithm = cc::Algorithm::SharedWindow;
  Holdings warm;
  int unexpected = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  for (int k = 0; k < kCalls; ++k) {
    if (k == kWarmup) warm = holdings();
    if (k % kCallsPerComm == 0) {
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
      comm = next_comm(k / kCallsPerComm);
    }
    const Fault fault = p > 1 || fault_of(k) == Fault::huge ? fault_of(k) : Fault::none;
    size_t count = kCount;
    if (fault == Fault::count && last) count = kCount - 1;
    if (fault == Fault::huge) count = SIZE_MAX / 4;
    size_t which = size_t(k) % ops.size();
    if (fault == Fault::operation && last) which = (which + 1) % ops.size();
    CallArgs args{send.data(),
                  recv.data(),
                  count,
                  Dtype::f32,
                  k % p,
                  comm,
                  options[size_t(k / 7) % options.size()]};
    // Every third call of the operations that have one goes through the shared window, whose
    // segments belong to the communicator and must go with it.
    if (k % 3 == 0 && offers_window(ops[size_t(k) % ops.size()].name)) args.opts = window;
    const Status st = ops[which].call(args);
    if (st.ok() != (fault == Fault::none) && unexpected++ < 5)
      ADD_FAILURE() << "call " << k << " (" << ops[which].name << "): " << st.to_string();
  }
  MPI_Comm_free(&comm);
  const Holdings end = holdings();
  EXPECT_EQ(unexpected, 0);
  if (world_rank() == 0)
    std::printf(
        "[soak] after %d calls -> after %d: rss %ld -> %ld KiB, fds %ld -> %ld, shm named "
        "%ld -> %ld, mapped %ld -> %ld\n",
        kWarmup, kCalls, warm.rss_kib, end.rss_kib, warm.open_files, end.open_files, warm.shm_named,
        end.shm_named, warm.shm_mapped, end.shm_mapped);
  // Slack for the allocator's own bookkeeping, not for a per-call loss: 9,000 calls losing
  // even 256 bytes each would pass 2 MiB.
  if (kRssMeaningful) {
    EXPECT_LE(end.rss_kib, warm.rss_kib + 2048);
  }
  EXPECT_LE(end.open_files, warm.open_files);
  EXPECT_LE(end.shm_named, warm.shm_named);
  EXPECT_LE(end.shm_mapped, warm.shm_mapped);
}

}  // namespace
}  // namespace commpress::testing::comm
