#include "pmpi/intercept.hpp"

#include <chrono>
#include <cstdio>

#include "pmpi/bypass.hpp"
#include "pmpi/comm_policy.hpp"

namespace commpress::pmpi {

std::optional<comm::Dtype> float_dtype(MPI_Datatype t) {
  if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4) return comm::Dtype::f32;
  if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) return comm::Dtype::f64;
  return std::nullopt;
}

std::optional<comm::Op> builtin_op(MPI_Op op) {
  if (op == MPI_SUM) return comm::Op::sum;
  if (op == MPI_MIN) return comm::Op::min;
  if (op == MPI_MAX) return comm::Op::max;
  if (op == MPI_PROD) return comm::Op::prod;
  return std::nullopt;
}

const char* type_name(MPI_Datatype t) {
  if (t == MPI_FLOAT) return "MPI_FLOAT";
  if (t == MPI_DOUBLE) return "MPI_DOUBLE";
  if (t == MPI_REAL) return "MPI_REAL";
  if (t == MPI_DOUBLE_PRECISION) return "MPI_DOUBLE_PRECISION";
  if (t == MPI_REAL4) return "MPI_REAL4";
  if (t == MPI_REAL8) return "MPI_REAL8";
  if (t == MPI_INT) return "MPI_INT";
  if (t == MPI_INTEGER) return "MPI_INTEGER";
  if (t == MPI_LONG) return "MPI_LONG";
  if (t == MPI_BYTE) return "MPI_BYTE";
  return "other type";
}

const char* op_text(MPI_Op op) {
  if (auto o = builtin_op(op)) return comm::op_name(*o);
  return "other op";
}

const Policy* active_policy_of(MPI_Comm comm, unsigned op) {
  if (bypassing()) return nullptr;
  const Policy* p = policy_for(comm);
  return p != nullptr && p->intercepts(op) ? p : nullptr;
}

bool large_enough(const Policy& policy, const CallFacts& facts) {
  if (facts.bytes >= policy.min_bytes) return true;
  record_small(facts, policy.min_bytes);
  return false;
}

size_t bytes_of(size_t count, MPI_Datatype t) {
  int size = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0) return 0;
  return count * size_t(size);
}

std::string type_refusal(MPI_Datatype t) {
  if (float_dtype(t)) return {};
  return std::string(type_name(t)) + " is not a contiguous float or double type";
}

std::string reduction_refusal(MPI_Datatype t, MPI_Op op, const Policy& policy) {
  std::string why = type_refusal(t);
  if (!why.empty()) return why;
  const auto o = builtin_op(op);
  if (!o) return "user-defined or non-arithmetic operation";
  if (*o == comm::Op::prod && policy.bound.mode != codec::BoundMode::lossless)
    return "MPI_PROD has no error bound under a lossy policy";
  return {};
}

namespace {

// Errors every rank returns together before any data moved (commpress agrees on its
// arguments first): the call can still go to MPI unchanged.
bool refused_before_moving(ErrorCode c) {
  return c == ErrorCode::invalid_argument || c == ErrorCode::unsupported ||
         c == ErrorCode::mismatch || c == ErrorCode::overflow;
}

}  // namespace

int intercept(const Intercepted& call, const Policy& policy) {
  Bypass inside;
  std::string refusal = call.refusal;
  if (refusal.empty()) {
    int inter = 0;
    PMPI_Comm_test_inter(call.comm, &inter);
    if (inter) refusal = "intercommunicator";
  }
  int can = refusal.empty() ? 1 : 0;
  if (PMPI_Allreduce(MPI_IN_PLACE, &can, 1, MPI_INT, MPI_MIN, call.comm) != MPI_SUCCESS)
    return call.pass();
  if (!can) {
    record_passed(call.facts, refusal.empty() ? "another rank cannot run it" : refusal);
    return call.pass();
  }
  comm::Options opts;
  opts.codec = policy.codec;
  opts.bound = policy.bound;
  const auto t0 = std::chrono::steady_clock::now();
  Result<comm::Report> r = call.run(opts);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.ok()) {
    record_intercepted(call.facts, *r, policy, seconds);
    return MPI_SUCCESS;
  }
  if (refused_before_moving(r.status().code())) {
    record_passed(call.facts, "commpress refused: " + r.status().to_string());
    return call.pass();
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "commpress_mpi[%d]: %s failed: %s\n", rank, call.facts.mpi_name,
               r.status().to_string().c_str());
  // The handler runs (MPI_ERRORS_ARE_FATAL aborts); under MPI_ERRORS_RETURN the code
  // comes back, as MPI returns it.
  PMPI_Comm_call_errhandler(call.comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

}  // namespace commpress::pmpi
