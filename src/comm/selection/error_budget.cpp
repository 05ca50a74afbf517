#include "comm/selection/error_budget.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace commpress::comm::detail {

namespace {

double unit_roundoff(Dtype d) {
  return d == Dtype::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

double rounding_allowance(Op op, Dtype d, int inputs, double max_abs, double quantized) {
  if (!codec::is_float(d) || inputs <= 1 || op == Op::min || op == Op::max) return 0;
  const double u = unit_roundoff(d), p = inputs;
  if (op == Op::prod) {
    // p-1 multiplications, each rounding relatively by u: |fl(prod) - prod| <= gamma_{p-1}
    // |prod| <= gamma_{p-1} max_abs^p (only lossless prods are allowed: no quantization).
    double gamma = (p - 1) * u / (1 - (p - 1) * u);
    return gamma * std::pow(max_abs, p) * 1.01;
  }
  // Sum, with S = p * max_abs + quantized bounding every partial sum (docs/error-bounds.md):
  // the p - 1 additions in the element type round by at most u|partial| each; decoding q*step
  // (2u relative) happens once per input (2u S in all), once per quantized partial turned
  // back into values (disjoint partials: 2u S in all) and once at the end (2u S). Where all
  // stays quantized the additions are exact integer ones. 1% covers second-order terms.
  return (p + 3) * u * (p * max_abs + quantized) * 1.01;
}

Result<Budget> plan_budget(const BudgetRequest& req) {
  Budget b;
  if (!req.lossy) {
    b.guaranteed = rounding_allowance(req.op, req.dtype, req.inputs, req.max_abs, 0);
    return b;
  }
  if (req.op == Op::prod)
    return Status{ErrorCode::unsupported,
                  "prod with a lossy codec: a quantization error is multiplied by the other "
                  "factors, so no bound independent of their magnitudes can be promised; use a "
                  "lossless codec or Algorithm::Mpi"};
  const double E = req.requested;
  if (E == 0) {
    // A REL request over a range of 0 (or one too small for the dtype): every frame travels
    // exact, as with a lossless codec, and the result is off by the additions' rounding only.
    b.guaranteed = rounding_allowance(req.op, req.dtype, req.inputs, req.max_abs, 0);
    return b;
  }
  const double rounding = rounding_allowance(req.op, req.dtype, req.inputs, req.max_abs, E);
  const int q = req.op == Op::sum ? req.count.additive : req.count.depth;
  if (!(rounding < E))
    return Status{ErrorCode::invalid_argument,
                  "error bound " + num(E) + " leaves no room for the floating-point rounding of " +
                      std::string(op_name(req.op)) + " over " + std::to_string(req.inputs) +
                      " ranks of " + codec::dtype_name(req.dtype) + " values up to " +
                      num(req.max_abs) + " (up to " + num(rounding) +
                      "); ask for a larger bound, use f64, or a lossless codec"};
  if (q <= 0) {  // nothing is quantized on the way (everything travels raw)
    b.guaranteed = rounding;
    return b;
  }
  // A hair below the share, so q * step + rounding never exceeds E after rounding itself.
  b.step_bound = (E - rounding) / q * (1 - 4 * std::numeric_limits<double>::epsilon());
  if (!(b.step_bound >= std::numeric_limits<double>::min()))
    return Status{ErrorCode::invalid_argument,
                  "error bound " + num(E) + " split over " + std::to_string(q) +
                      " quantizations gives no usable per-step bound"};
  b.guaranteed = q * b.step_bound + rounding;
  return b;
}

}  // namespace commpress::comm::detail
