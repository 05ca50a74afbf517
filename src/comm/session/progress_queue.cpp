// One progress thread per communicator: operations on one communicator must run in the order
// every rank started them, and operations on different communicators may be started in
// different orders on different ranks, so one thread for all could wait for a peer that is
// itself waiting in another communicator's operation. The thread and its duplicate
// communicator hang off the caller's communicator as an attribute: freeing the communicator
// lets the thread finish what is queued and go; MPI_Finalize (through an attribute of
// MPI_COMM_SELF, which MPI deletes first) waits for every thread to finish.
#include "comm/session/comm_dup.hpp"
#include "comm/session/progress_queue.hpp"

#include <sys/prctl.h>

#include <deque>
#include <memory>
#include <set>
#include <thread>

#include "comm/session/environment.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/session/yielding_wait.hpp"
#include "commpress/nonblocking.hpp"

namespace commpress::comm::detail {

bool Task::done() {
  std::lock_guard lock(m);
  return result.has_value();
}

Result<Report> Task::wait() {
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return result.has_value(); });
  return *result;
}

void Task::finish(Result<Report> r) {
  {
    std::lock_guard lock(m);
    result = std::move(r);
  }
  cv.notify_all();
  if (completed) completed();
}

namespace {

Result<Report> run_guarded(Task& t, MPI_Comm comm) {
  try {
    return t.run(comm);
  } catch (const std::exception& e) {  // bad_alloc and the like: the other ranks' waits
    return Status{ErrorCode::internal, std::string("nonblocking operation: ") + e.what()};
  }
}

// Owned by itself while its thread runs (the thread holds a reference) and by the attribute
// of the caller's communicator; retired when that communicator is freed or MPI finalizes,
// after which it runs what is queued, frees its duplicate (not during MPI_Finalize, which
// frees everything) and goes.
class ProgressQueue : public std::enable_shared_from_this<ProgressQueue> {
 public:
  explicit ProgressQueue(MPI_Comm comm) : comm_(comm) {}

  void run_thread();  // starts the thread (detached: it ends by itself once retired)
  void post(std::shared_ptr<Task> t) {
    {
      std::lock_guard lock(m_);
      q_.push_back(std::move(t));
    }
    cv_.notify_one();
  }
  // Never blocks: an attribute's delete callback runs inside MPI_Comm_free, where a thread
  // still in MPI must not be waited for.
  void retire() {
    {
      std::lock_guard lock(m_);
      retired_ = true;
    }
    cv_.notify_one();
  }

 private:
  void loop();

  MPI_Comm comm_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> q_;
  bool retired_ = false;
};

// The queues whose threads run, for MPI_Finalize to retire and wait for.
std::mutex g_live_m;
std::condition_variable g_live_cv;
std::set<std::shared_ptr<ProgressQueue>> g_live;
bool g_finalizing = false;

void ProgressQueue::run_thread() {
  {
    std::lock_guard lock(g_live_m);
    g_live.insert(shared_from_this());
  }
  std::thread([self = shared_from_this()] { self->loop(); }).detach();
}

void ProgressQueue::loop() {
  // COMMPRESS_PROGRESS=thread: the waits sleep between tests (yielding_wait.hpp), and the
  // kernel's default timer slack would stretch their first, short sleeps tenfold.
  const bool sleep = environment().progress == ProgressMode::thread;
  const YieldingWaits waits(sleep);
  if (sleep) prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  for (;;) {
    std::shared_ptr<Task> t;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return retired_ || !q_.empty(); });
      if (q_.empty()) break;  // retired, and nothing left
      t = std::move(q_.front());
      q_.pop_front();
    }
    t->finish(run_guarded(*t, comm_));
  }
  std::lock_guard lock(g_live_m);
  if (!g_finalizing) MPI_Comm_free(&comm_);
  g_live.erase(shared_from_this());
  g_live_cv.notify_all();
}

int delete_queue(MPI_Comm, int, void* attr, void*) {
  auto* holder = static_cast<std::shared_ptr<ProgressQueue>*>(attr);
  (*holder)->retire();
  delete holder;
  return MPI_SUCCESS;
}

int retire_all(MPI_Comm, int, void*, void*) {
  std::unique_lock lock(g_live_m);
  g_finalizing = true;
  for (const auto& q : g_live) q->retire();
  g_live_cv.wait(lock, [] { return g_live.empty(); });
  return MPI_SUCCESS;
}

int queue_keyval() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_queue, &k, nullptr);
    // MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works.
    int at_finalize = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, retire_all, &at_finalize, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, at_finalize, nullptr);
    return k;
  }();
  return key;
}

// The queue of comm, made (collectively: a duplicate) at its first operation.
Result<ProgressQueue*> queue_of(MPI_Comm comm) {
  void* attr = nullptr;
  int found = 0;
  COMMPRESS_MPI(MPI_Comm_get_attr(comm, queue_keyval(), &attr, &found));
  if (found) return static_cast<std::shared_ptr<ProgressQueue>*>(attr)->get();
  MPI_Comm dup = MPI_COMM_NULL;
  COMMPRESS_MPI(comm_dup(comm, &dup));
  COMMPRESS_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  auto* holder = new std::shared_ptr<ProgressQueue>(std::make_shared<ProgressQueue>(dup));
  (*holder)->run_thread();
  COMMPRESS_MPI(MPI_Comm_set_attr(comm, queue_keyval(), holder));
  return holder->get();
}

}  // namespace

bool threads_available() {
#ifdef COMMPRESS_SMPI
  // SimGrid's SMPI runs each rank as a simulated actor: a thread of our own is none, and its
  // MPI calls would not belong to any rank.
  return false;
#else
  int initialized = 0, finalized = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return false;
  MPI_Query_thread(&level);
  return level == MPI_THREAD_MULTIPLE && environment().progress != ProgressMode::inline_;
#endif
}

void post(MPI_Comm comm, const std::shared_ptr<Task>& task) {
  if (comm == MPI_COMM_NULL) {
    task->finish(Status{ErrorCode::invalid_argument, "nonblocking operation on MPI_COMM_NULL"});
    return;
  }
  if (Status mode = progress_mode_status(); !mode.ok()) {  // alike on ranks given alike
    task->finish(mode);
    return;
  }
  if (!threads_available()) {  // no thread may call MPI beside the caller's: run it now
    task->finish(run_guarded(*task, comm));
    return;
  }
  auto q = queue_of(comm);
  if (!q.ok()) {
    task->finish(q.status());
    return;
  }
  (*q)->post(task);
}

}  // namespace commpress::comm::detail
