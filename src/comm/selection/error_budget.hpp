// Turning the user's bound on the RESULT into the bound each compression honours, and the
// bound the operation then guarantees (derivation per algorithm: docs/error-bounds.md).
//
// An algorithm describes how codec errors reach its result by a QuantizationCount: for sums
// the errors of all quantized partials add up (`additive`); min and max are 1-Lipschitz in
// each argument, so only the longest chain of requantizations counts (`depth`). Floating-
// point rounding of the arithmetic is bounded separately from the global magnitude of the
// inputs and reserved out of the user's bound first.
#pragma once

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct QuantizationCount {
  int additive = 0;  // sum: how many step bounds the result's error can add up to
  int depth = 0;     // min/max: the longest chain of quantizations behind one element
};

struct BudgetRequest {
  Op op = Op::sum;
  Dtype dtype = Dtype::f32;
  int inputs = 1;            // ranks contributing to each element
  bool lossy = false;        // the wire quantizes (a lossy codec)
  double requested = 0;      // the user's bound resolved to ABS (ignored unless lossy)
  double max_abs = 0;        // largest finite |input| over all ranks
  QuantizationCount count;   // the algorithm's structure
};

struct Budget {
  double step_bound = 0;  // ABS bound for every compression (0 when nothing is lossy)
  double guaranteed = 0;  // on every element of the result (<= requested when lossy)
};

// The rounding allowance: a bound on what floating-point arithmetic (sums in the element
// type, decoding q*step, products) can add to the result of combining `inputs` values of
// magnitude <= max_abs whose quantization errors total at most `quantized`. 0 for min/max
// and integer dtypes (exact), +inf when it does not fit a double.
double rounding_allowance(Op op, Dtype d, int inputs, double max_abs, double quantized);

// invalid_argument when a lossy request leaves no room beside the rounding allowance (the
// message names both numbers), unsupported for a lossy prod.
Result<Budget> plan_budget(const BudgetRequest& req);

}  // namespace commpress::comm::detail
