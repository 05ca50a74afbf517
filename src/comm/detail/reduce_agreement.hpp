// The reductions' second agreement, in the same single round trip as the global value range
// their error budget needs: the arguments begin_collective does not compare (op, the
// break-even size, pretend nodes) must match on every rank, and the finite range of every
// rank's input is reduced alongside (min and max, hence the largest magnitude).
#pragma once

#include <mpi.h>

#include <vector>

#include "comm/detail/agreement.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct ValueRange {
  double lo, hi;  // over the finite inputs of all ranks; lo > hi when there are none
  double max_abs() const;
};

// Collective. Field values must be exact in a double (|v| < 2^53). Every rank returns the
// same mismatch error when a field differs.
Result<ValueRange> agree_with_range(MPI_Comm comm, const char* op_name,
                                    const std::vector<Field>& fields, Dtype dtype,
                                    const void* data, size_t n);

}  // namespace commpress::comm::detail
