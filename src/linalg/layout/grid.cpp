// Process grids: the shape is agreed on collectively, then the row, column, layer and fiber
// communicators are split once and shared by every copy of the Grid.
#include <mpi.h>

#include <string>

#include "comm/session/agreement.hpp"
#include "comm/session/comm_dup.hpp"
#include "comm/session/private_comm.hpp"
#include "commpress/linalg.hpp"
#include "linalg/layout/grid_impl.hpp"

namespace commpress::linalg {

Grid::Impl::~Impl() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;  // MPI freed them already
  for (MPI_Comm* c : {&all, &row, &col, &layer, &fiber})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

namespace {

Status check_shape(MPI_Comm comm, int rows, int cols, int layers) {
  int size = 0;
  COMMPRESS_MPI(MPI_Comm_size(comm, &size));
  Status local;
  if (rows < 1 || cols < 1 || layers < 1) {
    local = {ErrorCode::invalid_argument, "grid " + std::to_string(rows) + "x" +
                                              std::to_string(cols) + "x" + std::to_string(layers) +
                                              ": every dimension must be at least 1"};
  } else if (int64_t(rows) * cols * layers != size) {
    local = {ErrorCode::invalid_argument,
             "grid " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
                 std::to_string(layers) + " needs " + std::to_string(int64_t(rows) * cols * layers) +
                 " ranks, the communicator has " + std::to_string(size)};
  }
  return comm::detail::agree(
      comm, {{"grid rows", rows}, {"grid cols", cols}, {"grid layers", layers}}, local);
}

}  // namespace

Result<Grid> Grid::create(MPI_Comm comm, int rows, int cols, int layers) {
  COMMPRESS_RETURN_IF_ERROR(check_shape(comm, rows, cols, layers));
  auto impl = std::make_shared<Impl>();
  impl->rows = rows;
  impl->cols = cols;
  impl->layers = layers;
  COMMPRESS_MPI(comm::detail::comm_dup(comm, &impl->all));
  int rank = 0;
  COMMPRESS_MPI(MPI_Comm_rank(impl->all, &rank));
  const int face = rows * cols;
  impl->layer_index = rank / face;
  impl->row_index = (rank % face) / cols;
  impl->col_index = rank % cols;
  const int l = impl->layer_index, r = impl->row_index, c = impl->col_index;
  COMMPRESS_MPI(MPI_Comm_split(impl->all, l * rows + r, c, &impl->row));
  COMMPRESS_MPI(MPI_Comm_split(impl->all, l * cols + c, r, &impl->col));
  COMMPRESS_MPI(MPI_Comm_split(impl->all, l, r * cols + c, &impl->layer));
  COMMPRESS_MPI(MPI_Comm_split(impl->all, r * cols + c, l, &impl->fiber));
  Grid g;
  g.impl_ = std::move(impl);
  return g;
}

int Grid::rows() const { return impl_->rows; }
int Grid::cols() const { return impl_->cols; }
int Grid::layers() const { return impl_->layers; }
int Grid::row() const { return impl_->row_index; }
int Grid::col() const { return impl_->col_index; }
int Grid::layer() const { return impl_->layer_index; }
int Grid::size() const { return impl_->rows * impl_->cols * impl_->layers; }
int Grid::rank_of(int row, int col, int layer) const {
  return (layer * impl_->rows + row) * impl_->cols + col;
}
MPI_Comm Grid::comm() const { return impl_->all; }
MPI_Comm Grid::row_comm() const { return impl_->row; }
MPI_Comm Grid::col_comm() const { return impl_->col; }
MPI_Comm Grid::layer_comm() const { return impl_->layer; }
MPI_Comm Grid::fiber_comm() const { return impl_->fiber; }

int64_t BlockSplit::offset(int i) const {
  const int64_t o = int64_t(i) * block();
  return o < n ? o : n;
}

int64_t BlockSplit::size(int i) const { return offset(i + 1) - offset(i); }

}  // namespace commpress::linalg
