// The multiply's side of the algorithm table (model/gemm_algorithms.def): names and literature
// (from the model's rows), the planning hook of the algorithms that move raw blocks, and the
// dispatch to each row's runner.
#include <string>

#include "commpress/gemm_model.hpp"
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg {

const char* gemm_algorithm_name(GemmAlgorithm a) {
  if (a == GemmAlgorithm::Auto) return "auto";
  const model::GemmAlgorithmInfo* info = model::gemm_algorithm_info(a);
  return info ? info->name : "unknown";
}

const char* gemm_algorithm_literature(GemmAlgorithm a) {
  if (a == GemmAlgorithm::Auto) return "the cost models' choice";
  const model::GemmAlgorithmInfo* info = model::gemm_algorithm_info(a);
  return info ? info->literature : "unknown";
}

Result<GemmAlgorithm> parse_gemm_algorithm(std::string_view name) {
  std::string known = "auto";
  if (name == known) return GemmAlgorithm::Auto;
  for (const model::GemmAlgorithmInfo& a : model::gemm_algorithms()) {
    if (name == a.name) return a.id;
    known += std::string(", ") + a.name;
  }
  return Status{ErrorCode::invalid_argument,
                "unknown gemm algorithm '" + std::string(name) + "' (known: " + known + ")"};
}

namespace detail {

void plan_raw(GemmPlan& plan) {
  plan.compress_a = plan.compress_b = false;
  plan.panel = 0;
}

template <class T>
Status run_planned(const GemmCall<T>& call, GemmReport& report) {
  switch (call.plan->algorithm) {
#define COMMPRESS_GEMM_ALGORITHM(Id, C_ID, name, literature, codec, grid, candidate, model_time, \
                                 model_memory, plan, runner)                                   \
  case GemmAlgorithm::Id:                                                                      \
    return runner<T>(call, report);
#include "model/gemm_algorithms.def"
#undef COMMPRESS_GEMM_ALGORITHM
    case GemmAlgorithm::Auto:
      break;
  }
  return {ErrorCode::internal, "gemm: the plan names no algorithm that runs"};
}

template Status run_planned<float>(const GemmCall<float>&, GemmReport&);
template Status run_planned<double>(const GemmCall<double>&, GemmReport&);

}  // namespace detail

}  // namespace commpress::linalg
