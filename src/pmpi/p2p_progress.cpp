#include "pmpi/p2p_progress.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "pmpi/bypass.hpp"

namespace commpress::pmpi {

namespace {

struct Progress {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::unique_ptr<P2pWork>> incoming;
  bool stopping = false;
  std::thread thread;
};

Progress& state() {
  static Progress p;
  return p;
}

// Sleeps between fruitless tests grow to this: a compressed message worth intercepting
// takes far longer than that to arrive, and a spinning thread would take a core from the
// ranks sharing the node.
constexpr auto kLongestNap = std::chrono::microseconds(500);

void run() {
  Bypass inside;  // the thread's MPI calls are the library's own
  Progress& p = state();
  std::vector<std::unique_ptr<P2pWork>> work;
  std::vector<MPI_Request> requests;
  std::vector<int> done;
  std::vector<MPI_Status> statuses;
  auto nap = std::chrono::microseconds(0);
  bool cancelled = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(p.mutex);
      if (work.empty())
        p.wake.wait(lock, [&] { return p.stopping || !p.incoming.empty(); });
      for (auto& w : p.incoming) work.push_back(std::move(w));
      p.incoming.clear();
      if (p.stopping && !cancelled) {
        // The program left receives pending at MPI_Finalize: nothing will match them now.
        for (auto& w : work)
          if (w->is_receive() && !w->cancel_sent) PMPI_Cancel(&w->inner);
        cancelled = true;
      }
      if (work.empty() && p.stopping) return;
    }
    requests.resize(work.size());
    for (size_t i = 0; i < work.size(); ++i) {
      if (work[i]->wants_cancel() && !work[i]->cancel_sent) {
        PMPI_Cancel(&work[i]->inner);
        work[i]->cancel_sent = true;
      }
      requests[i] = work[i]->inner;
    }
    done.resize(work.size());
    statuses.resize(work.size());
    int completed = 0;
    PMPI_Testsome(int(requests.size()), requests.data(), &completed, done.data(),
                  statuses.data());
    if (completed == MPI_UNDEFINED) completed = 0;
    for (int k = 0; k < completed; ++k) {
      const size_t i = size_t(done[size_t(k)]);
      work[i]->inner = MPI_REQUEST_NULL;
      work[i]->finished(statuses[size_t(k)]);
      work[i].reset();
    }
    std::erase(work, nullptr);
    if (completed > 0) {
      nap = std::chrono::microseconds(0);
    } else {
      nap = std::min(kLongestNap, nap * 2 + std::chrono::microseconds(5));
      std::this_thread::sleep_for(nap);
    }
  }
}

}  // namespace

void progress_p2p(std::unique_ptr<P2pWork> w) {
  Progress& p = state();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (!p.thread.joinable()) p.thread = std::thread(run);
  p.incoming.push_back(std::move(w));
  p.wake.notify_one();
}

void stop_p2p_progress() {
  Progress& p = state();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.thread.joinable()) return;
    p.stopping = true;
    p.wake.notify_one();
  }
  p.thread.join();
}

}  // namespace commpress::pmpi
