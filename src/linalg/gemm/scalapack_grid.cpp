#include "linalg/gemm/scalapack_grid.hpp"

#include <mpi.h>

#include <array>
#include <map>
#include <mutex>

#include "comm/session/private_comm.hpp"
#include "linalg/layout/blacs.hpp"

namespace commpress::linalg::detail {

namespace {

// A context number can be released and handed out again for other processes, so an entry
// also remembers the shape and the group it was built for.
struct Entry {
  std::array<int, 4> info{};  // nprow, npcol, myrow, mycol
  MPI_Group group = MPI_GROUP_NULL;
  Grid grid;
};

constexpr size_t kMaxEntries = 8;

struct Cache {
  std::mutex mutex;
  std::map<int, Entry> entries;
};

Cache& cache() {
  static Cache c;
  return c;
}

void release(Entry& e) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && e.group != MPI_GROUP_NULL) MPI_Group_free(&e.group);
}

}  // namespace

Result<Grid> grid_of_context(int context) {
  std::array<int, 4> info{-1, -1, -1, -1};
  Cblacs_gridinfo(context, &info[0], &info[1], &info[2], &info[3]);
  if (info[2] < 0 || info[3] < 0) return Grid::from_blacs(context);  // its error
  int handle = -1;
  Cblacs_get(context, 10, &handle);
  MPI_Comm system = Cblacs2sys_handle(handle);
  Cfree_blacs_system_handle(handle);
  MPI_Group group = MPI_GROUP_NULL;
  COMMPRESS_MPI(MPI_Comm_group(system, &group));

  Cache& c = cache();
  int hit = 0;
  Grid cached;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.entries.find(context);
    int same = MPI_UNEQUAL;
    if (it != c.entries.end() && it->second.info == info)
      MPI_Group_compare(it->second.group, group, &same);
    if (same == MPI_IDENT) {
      hit = 1;
      cached = it->second.grid;
    }
  }
  // Any process without the entry must build the Grid, and building is collective.
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &hit, 1, MPI_INT, MPI_MIN, system));
  if (hit) {
    MPI_Group_free(&group);
    return cached;
  }
  auto grid = Grid::from_blacs(context);
  if (!grid.ok()) {
    MPI_Group_free(&group);
    return grid;
  }
  std::lock_guard<std::mutex> lock(c.mutex);
  if (auto it = c.entries.find(context); it != c.entries.end()) {
    release(it->second);
    c.entries.erase(it);
  }
  if (c.entries.size() >= kMaxEntries) {
    release(c.entries.begin()->second);
    c.entries.erase(c.entries.begin());
  }
  c.entries[context] = Entry{info, group, *grid};
  return grid;
}

}  // namespace commpress::linalg::detail
