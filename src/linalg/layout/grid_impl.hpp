// The communicators behind a Grid (internal; algorithms reach them through Grid's accessors).
#pragma once

#include <mpi.h>

#include "commpress/linalg.hpp"

namespace commpress::linalg {

struct Grid::Impl {
  int rows = 1, cols = 1, layers = 1;
  int row_index = 0, col_index = 0, layer_index = 0;
  MPI_Comm all = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL,
           layer = MPI_COMM_NULL, fiber = MPI_COMM_NULL;
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();
};

}  // namespace commpress::linalg
