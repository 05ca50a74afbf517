// extern "C" shims for process grids: creation (collective), coordinates, and the block of a
// global matrix this rank stores.
#include <memory>

#include "capi/capi_support.hpp"
#include "capi/linalg_capi.hpp"

using namespace commpress;
using namespace commpress::capi;

extern "C" {

commpress_status commpress_grid_create(MPI_Comm comm, int rows, int cols, int layers,
                                       commpress_grid** grid) {
  return guarded("commpress_grid_create", [&] {
    // Without somewhere to put the grid this rank cannot take part: its error alone.
    if (grid == nullptr) return null_argument("commpress_grid_create", "grid");
    *grid = nullptr;
    auto created = linalg::Grid::create(comm, rows, cols, layers);
    if (!created.ok()) return record(created.status());
    *grid = new commpress_grid{std::move(created).value()};
    return COMMPRESS_OK;
  });
}

commpress_status commpress_grid_destroy(commpress_grid* grid) {
  return guarded("commpress_grid_destroy", [&] {
    delete grid;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_grid_coords(const commpress_grid* grid, int* row, int* col,
                                       int* layer) {
  return guarded("commpress_grid_coords", [&] {
    if (grid == nullptr) return null_argument("commpress_grid_coords", "grid");
    if (row) *row = grid->grid.row();
    if (col) *col = grid->grid.col();
    if (layer) *layer = grid->grid.layer();
    return COMMPRESS_OK;
  });
}

commpress_status commpress_grid_local_block(const commpress_grid* grid, int64_t rows,
                                            int64_t cols, int64_t* row_offset,
                                            int64_t* col_offset, int64_t* local_rows,
                                            int64_t* local_cols) {
  return guarded("commpress_grid_local_block", [&] {
    if (grid == nullptr) return null_argument("commpress_grid_local_block", "grid");
    if (rows < 0 || cols < 0)
      return fail(ErrorCode::invalid_argument,
                  "commpress_grid_local_block: negative dimensions " + std::to_string(rows) +
                      "x" + std::to_string(cols));
    const linalg::Grid& g = grid->grid;
    const linalg::DistMatrix<double> shape{rows, cols, nullptr, 1};
    if (row_offset) *row_offset = shape.row_split(g).offset(g.row());
    if (col_offset) *col_offset = shape.col_split(g).offset(g.col());
    if (local_rows) *local_rows = shape.local_rows(g);
    if (local_cols) *local_cols = shape.local_cols(g);
    return COMMPRESS_OK;
  });
}

}  // extern "C"
