#include "comm/session/yielding_wait.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace commpress::comm::detail {

namespace {

enum : int { kCaller, kPolling, kSleeping };  // this thread: not a progress thread, or how it waits
thread_local int t_waits = kCaller;

// A few tests before the first sleep, so a transfer that is already done or nearly so costs
// no sleep; then sleeps that double up to a cap short enough that the sockets' buffers stay
// fed (MPI moves bytes over TCP only inside a test) and long enough that the tests cost a
// small share of a core.
constexpr int kTestsBeforeSleep = 8;
constexpr auto kFirstSleep = std::chrono::microseconds(5);
constexpr auto kLongestSleep = std::chrono::microseconds(100);

}  // namespace

YieldingWaits::YieldingWaits(bool sleep) : before_(t_waits) {
  t_waits = sleep ? kSleeping : kPolling;
}
YieldingWaits::~YieldingWaits() { t_waits = before_; }

bool waits_yield() { return t_waits == kSleeping; }

void sleep_until(const std::function<bool()>& test) {
  auto sleep = kFirstSleep;
  for (int tests = 0; !test(); ++tests) {
    if (tests < kTestsBeforeSleep) continue;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(2 * sleep, kLongestSleep);
  }
}

int waitall_yielding(int n, MPI_Request* reqs, MPI_Status* statuses) {
  return t_waits == kSleeping ? waitall_sleeping(n, reqs, statuses)
                              : MPI_Waitall(n, reqs, statuses);
}

int waitall_sleeping(int n, MPI_Request* reqs, MPI_Status* statuses) {
  int rc = MPI_SUCCESS;
  sleep_until([&] {
    int done = 0;
    rc = MPI_Testall(n, reqs, &done, statuses);
    return rc != MPI_SUCCESS || done != 0;
  });
  return rc;
}

int collective_yielding(const std::function<int()>& blocking,
                        const std::function<int(MPI_Request*)>& start) {
  if (t_waits == kCaller) return blocking();
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = start(&req);
  return rc != MPI_SUCCESS ? rc : waitall_yielding(1, &req, MPI_STATUS_IGNORE);
}

int allreduce_yielding(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) {
  return collective_yielding(
      [&] { return MPI_Allreduce(send, recv, count, type, op, comm); },
      [&](MPI_Request* req) { return MPI_Iallreduce(send, recv, count, type, op, comm, req); });
}

}  // namespace commpress::comm::detail
