#include "comm/algorithms/parts/reduce_ops.hpp"

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
void apply(Op op, T* out, const T* a, const T* x, size_t n) {
  switch (op) {
    case Op::sum:
      for (size_t i = 0; i < n; ++i) out[i] = combine(Op::sum, a[i], x[i]);
      break;
    case Op::prod:
      for (size_t i = 0; i < n; ++i) out[i] = combine(Op::prod, a[i], x[i]);
      break;
    case Op::min:
      for (size_t i = 0; i < n; ++i) out[i] = combine(Op::min, a[i], x[i]);
      break;
    case Op::max:
      for (size_t i = 0; i < n; ++i) out[i] = combine(Op::max, a[i], x[i]);
      break;
  }
}

template <class T>
void apply(Op op, void* out, const void* a, const void* x, size_t n) {
  apply(op, static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(x), n);
}

}  // namespace

void apply_op(Op op, Dtype d, void* acc, const void* x, size_t n) {
  apply_op_into(op, d, acc, acc, x, n);
}

void apply_op_into(Op op, Dtype d, void* out, const void* a, const void* x, size_t n) {
  switch (d) {
    case Dtype::f32:
      return apply<float>(op, out, a, x, n);
    case Dtype::f64:
      return apply<double>(op, out, a, x, n);
    case Dtype::i32:
      return apply<int32_t>(op, out, a, x, n);
    case Dtype::i64:
      return apply<int64_t>(op, out, a, x, n);
    case Dtype::u8:
      return apply<uint8_t>(op, out, a, x, n);
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
