// The element-wise reduction operators on local arrays, and their MPI counterparts. Integer
// sums and products wrap modulo 2^bits (as MPI's do), never overflowing a signed type.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

// acc[i] = acc[i] op x[i] for n elements of dtype d (acc and x may not overlap partially).
void apply_op(Op op, Dtype d, void* acc, const void* x, size_t n);
// out[i] = a[i] op x[i] (out may be a; neither may overlap x or each other partially).
void apply_op_into(Op op, Dtype d, void* out, const void* a, const void* x, size_t n);

MPI_Op mpi_op(Op op);

// invalid_argument for an Op value outside the enum.
Status check_op(Op op);

}  // namespace commpress::comm::detail
