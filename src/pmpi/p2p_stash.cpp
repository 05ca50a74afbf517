#include "pmpi/p2p_stash.hpp"

#include <atomic>
#include <deque>
#include <mutex>

namespace commpress::pmpi {

namespace {

struct Stash {
  std::mutex mutex;
  std::deque<Stashed> kept;
  std::atomic<bool> any{false};
};

Stash& the_stash() {
  static Stash s;
  return s;
}

bool matches(const Stashed& s, MPI_Comm comm, int source, int tag) {
  return s.comm == comm && (source == MPI_ANY_SOURCE || source == s.source) &&
         (tag == MPI_ANY_TAG || tag == s.tag);
}

}  // namespace

int receive_matched(MPI_Comm comm, MPI_Message handle, const MPI_Status& st, Stashed& s) {
  MPI_Count length = 0;
  PMPI_Get_elements_x(&st, MPI_BYTE, &length);
  s.comm = comm;
  s.source = st.MPI_SOURCE;
  s.tag = st.MPI_TAG;
  s.size = size_t(length);
  s.data.reset(new std::byte[s.size]);
  return PMPI_Mrecv(s.data.get(), int(length), MPI_BYTE, &handle, MPI_STATUS_IGNORE);
}

void stash(Stashed s) {
  Stash& st = the_stash();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.kept.push_back(std::move(s));
  st.any = true;
}

bool stash_holds_any() { return the_stash().any.load(std::memory_order_acquire); }

std::optional<Stashed> take_stashed(MPI_Comm comm, int source, int tag) {
  Stash& st = the_stash();
  if (!st.any.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard<std::mutex> lock(st.mutex);
  for (auto it = st.kept.begin(); it != st.kept.end(); ++it) {
    if (!matches(*it, comm, source, tag)) continue;
    Stashed s = std::move(*it);
    st.kept.erase(it);
    st.any = !st.kept.empty();
    return s;
  }
  return std::nullopt;
}

std::optional<Stashed> find_stashed(MPI_Comm comm, int source, int tag) {
  Stash& st = the_stash();
  if (!st.any.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard<std::mutex> lock(st.mutex);
  for (const Stashed& s : st.kept)
    if (matches(s, comm, source, tag)) return s;
  return std::nullopt;
}

}  // namespace commpress::pmpi
