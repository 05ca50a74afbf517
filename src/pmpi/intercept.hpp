// The one path every intercepted collective takes: decide (the same way on every rank)
// whether commpress runs the call, run it with this thread's MPI traffic going to PMPI_*,
// and record what happened. Anything commpress cannot run as MPI would goes to PMPI_*.
#pragma once

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>

#include "commpress/comm.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/collective_calls.hpp"
#include "pmpi/comm_policy.hpp"
#include "pmpi/policy.hpp"

namespace commpress::pmpi {

// MPI_FLOAT, MPI_REAL, MPI_REAL4 -> f32; MPI_DOUBLE, MPI_DOUBLE_PRECISION, MPI_REAL8 -> f64;
// anything else (integers, derived types, pairs) is not for commpress.
std::optional<comm::Dtype> float_dtype(MPI_Datatype t);
std::optional<comm::Op> builtin_op(MPI_Op op);
const char* type_name(MPI_Datatype t);  // "MPI_FLOAT", ..., "other"
const char* op_text(MPI_Op op);          // "sum", ..., "user op"

struct Intercepted {
  CallFacts facts;
  MPI_Comm comm;
  // Why this rank cannot run the call through commpress ("" = it can). Must not depend on
  // anything that may differ between ranks of a correct program only in ways MPI allows,
  // which is why the ranks still agree on it (one small PMPI_Allreduce) before any runs it.
  std::string refusal;
  std::function<Result<comm::Report>(const comm::Options&)> run;
  Pass pass;  // the call as the caller's binding makes it, untouched
};

// First checks, free of communication, which every rank of a correct program passes alike.
// The policy of comm when it intercepts `op` (nullptr: pass through silently)...
const Policy* active_policy_of(MPI_Comm comm, unsigned op);
inline const Policy* active_policy(MPI_Comm comm, unsigned op) {
  return may_intercept() ? active_policy_of(comm, op) : nullptr;
}
// ...and whether the call is large enough (a smaller one is recorded as passed through).
bool large_enough(const Policy& policy, const CallFacts& facts);
// count elements of t in bytes (0 when t has no size).
size_t bytes_of(size_t count, MPI_Datatype t);
// Why commpress cannot reduce this (type, op) under the policy ("" = it can).
std::string reduction_refusal(MPI_Datatype t, MPI_Op op, const Policy& policy);
std::string type_refusal(MPI_Datatype t);

int intercept(const Intercepted& call, const Policy& policy);

}  // namespace commpress::pmpi
