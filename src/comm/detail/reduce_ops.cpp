#include "comm/detail/reduce_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace commpress::comm::detail {

namespace {

template <class T>
T combine(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Unsigned arithmetic wraps by definition; the signed result is the same bit pattern.
    using U = std::make_unsigned_t<T>;
    if (op == Op::sum) return T(U(a) + U(b));
    if (op == Op::prod) return T(U(a) * U(b));
  } else {
    if (op == Op::sum) return a + b;
    if (op == Op::prod) return a * b;
  }
  // min/max as MPI computes them: b only when strictly better, so equal values keep a.
  if (op == Op::min) return b < a ? b : a;
  return a < b ? b : a;
}

template <class T>
void apply(Op op, T* acc, const T* x, size_t n) {
  switch (op) {
    case Op::sum:
      for (size_t i = 0; i < n; ++i) acc[i] = combine(Op::sum, acc[i], x[i]);
      break;
    case Op::prod:
      for (size_t i = 0; i < n; ++i) acc[i] = combine(Op::prod, acc[i], x[i]);
      break;
    case Op::min:
      for (size_t i = 0; i < n; ++i) acc[i] = combine(Op::min, acc[i], x[i]);
      break;
    case Op::max:
      for (size_t i = 0; i < n; ++i) acc[i] = combine(Op::max, acc[i], x[i]);
      break;
  }
}

}  // namespace

void apply_op(Op op, Dtype d, void* acc, const void* x, size_t n) {
  switch (d) {
    case Dtype::f32: return apply(op, static_cast<float*>(acc), static_cast<const float*>(x), n);
    case Dtype::f64: return apply(op, static_cast<double*>(acc), static_cast<const double*>(x), n);
    case Dtype::i32: return apply(op, static_cast<int32_t*>(acc), static_cast<const int32_t*>(x), n);
    case Dtype::i64: return apply(op, static_cast<int64_t*>(acc), static_cast<const int64_t*>(x), n);
    case Dtype::u8: return apply(op, static_cast<uint8_t*>(acc), static_cast<const uint8_t*>(x), n);
  }
}

MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::sum: return MPI_SUM;
    case Op::min: return MPI_MIN;
    case Op::max: return MPI_MAX;
    case Op::prod: return MPI_PROD;
  }
  return MPI_OP_NULL;
}

Status check_op(Op op) {
  if (op == Op::sum || op == Op::min || op == Op::max || op == Op::prod) return {};
  return {ErrorCode::invalid_argument, "unknown reduction op " + std::to_string(int(op))};
}

}  // namespace commpress::comm::detail
