// Agreement for the ScaLAPACK-compatible entry points: their errors are printed by every
// process, so every process must hold the very same message, not just the same code.
#pragma once

#include <mpi.h>

#include <vector>

#include "comm/session/agreement.hpp"
#include "commpress/status.hpp"

namespace commpress::linalg::detail {

// Collective over comm. Every rank returns the lowest failing rank's status (code and
// message: a concrete error, e.g. a null pointer whose fields could not be read, beats the
// disagreement it causes); without one, fields that differ across ranks give a mismatch
// naming the field and its range; otherwise ok.
Status agree_identically(MPI_Comm comm, const std::vector<comm::detail::Field>& fields,
                         const Status& local);

}  // namespace commpress::linalg::detail
