#include "comm/session/one_sided.hpp"

#include <cstdint>

#include "comm/session/private_comm.hpp"
#include "comm/session/comm_keyval.hpp"

namespace commpress::comm::detail {

namespace {

// The kept answer, as 1 + (windows work), so that a found attribute is never null.
int keyval() {
  static int key = new_comm_keyval();
  return key;
}

// Whether a window opens, locks and frees on this rank. Errors of window creation go to the
// communicator's handler, so MPI_ERRORS_RETURN is in force meanwhile (the caller's restored).
bool try_window(MPI_Comm comm) {
  MPI_Errhandler before = MPI_ERRHANDLER_NULL;
  if (MPI_Comm_get_errhandler(comm, &before) != MPI_SUCCESS) return false;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  static double cell = 0;  // only ever exposed, never accessed
  MPI_Win win = MPI_WIN_NULL;
  bool ok = MPI_Win_create(&cell, MPI_Aint(sizeof cell), int(sizeof cell), MPI_INFO_NULL, comm,
                           &win) == MPI_SUCCESS;
  if (ok) {
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    ok = MPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS;
    if (ok) ok = MPI_Win_unlock_all(win) == MPI_SUCCESS;
    ok = MPI_Win_free(&win) == MPI_SUCCESS && ok;
  }
  MPI_Comm_set_errhandler(comm, before);
  MPI_Errhandler_free(&before);
  return ok;
}

#ifdef COMMPRESS_SMPI
// Whether a simulated host holds two of comm's ranks. SMPI 3.32's shared-memory windows
// (MPI_Win_allocate_shared among one host's ranks, which SRUMMA reads its neighbours' blocks
// through) gave SRUMMA wrong products on every layout with several ranks a host (256^3
// uniform [-1, 1]: errors of 27-32 on 2 x 4, 1 x 8 and 8 x 8 ranks a host), and right ones
// with one rank a host (gets through MPI_Win_create's windows only): so under SMPI windows
// count as working only there.
bool host_shared(MPI_Comm comm) {
  MPI_Comm host = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS)
    return true;
  int size = 1;
  MPI_Comm_size(host, &size);
  MPI_Comm_free(&host);
  return size > 1;
}
#endif

}  // namespace

Result<bool> one_sided_windows_work(MPI_Comm comm) {
  void* attr = nullptr;
  int found = 0;
  COMMPRESS_MPI(MPI_Comm_get_attr(comm, keyval(), &attr, &found));
  if (found) return reinterpret_cast<intptr_t>(attr) == 2;
  int works = try_window(comm) ? 1 : 0;
#ifdef COMMPRESS_SMPI
  if (host_shared(comm)) works = 0;
#endif
  COMMPRESS_MPI(MPI_Allreduce(MPI_IN_PLACE, &works, 1, MPI_INT, MPI_MIN, comm));
  COMMPRESS_MPI(MPI_Comm_set_attr(comm, keyval(), reinterpret_cast<void*>(intptr_t{1} + works)));
  return works == 1;
}

}  // namespace commpress::comm::detail
