// The MPI datatype of each commpress dtype, for the Algorithm::Mpi paths and reductions.
#pragma once

#include <mpi.h>

#include "commpress/codec.hpp"

namespace commpress::comm::detail {

inline MPI_Datatype mpi_datatype(codec::Dtype d) {
  switch (d) {
    case codec::Dtype::f32: return MPI_FLOAT;
    case codec::Dtype::f64: return MPI_DOUBLE;
    case codec::Dtype::i32: return MPI_INT32_T;
    case codec::Dtype::i64: return MPI_INT64_T;
    case codec::Dtype::u8: return MPI_UINT8_T;
  }
  return MPI_DATATYPE_NULL;
}

}  // namespace commpress::comm::detail
