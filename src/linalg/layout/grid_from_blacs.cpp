// Grid::from_blacs: the Grid over the processes of a BLACS context, so a ScaLAPACK program's
// grid and commpress's grid put every process at the same (row, column).
#include <mpi.h>

#include <string>

#include "comm/session/private_comm.hpp"
#include "commpress/linalg.hpp"
#include "linalg/layout/blacs.hpp"

namespace commpress::linalg {

Result<Grid> Grid::from_blacs(int context) {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
  // A process outside the grid (or a context that does not exist) takes part in no
  // collective of the context, so it can only fail alone.
  if (nprow < 1 || npcol < 1 || myrow < 0 || mycol < 0)
    return Status{ErrorCode::invalid_argument,
                  "BLACS context " + std::to_string(context) +
                      " has no grid position on this process"};
  // What 10 (SGET_BLACSCONTXT) names the context's own communicator, which holds exactly the
  // grid's processes; the system handle is only a lookup key, released at once.
  int handle = -1;
  Cblacs_get(context, 10, &handle);
  MPI_Comm system = Cblacs2sys_handle(handle);
  Cfree_blacs_system_handle(handle);
  // The context's communicator orders processes as its gridinit order said ("Row" or "Col");
  // rank them row-major so Grid's coordinates are BLACS's.
  MPI_Comm ordered = MPI_COMM_NULL;
  COMMPRESS_MPI(MPI_Comm_split(system, 0, myrow * npcol + mycol, &ordered));
  auto grid = Grid::create(ordered, nprow, npcol);
  MPI_Comm_free(&ordered);  // Grid::create keeps its own duplicate
  if (!grid.ok()) return grid.status();
  if (grid->row() != myrow || grid->col() != mycol)
    return Status{ErrorCode::internal,
                  "grid of BLACS context " + std::to_string(context) + " places process (" +
                      std::to_string(myrow) + ", " + std::to_string(mycol) + ") at (" +
                      std::to_string(grid->row()) + ", " + std::to_string(grid->col()) + ")"};
  return grid;
}

}  // namespace commpress::linalg
