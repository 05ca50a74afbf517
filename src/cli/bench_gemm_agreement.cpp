#include "cli/bench_gemm_agreement.hpp"

#include <string>
#include <vector>

#include "cli/bench_plan_agreement.hpp"

namespace commpress::cli {

Status agree_on_plan(const BenchGemmArgs& a, const Status& local, MPI_Comm comm) {
  using std::to_string;
  return agree_on_plan({{"--algorithm", plan_text(a.algorithms)},
                        {"--m", to_string(a.m)},
                        {"--n", to_string(a.n)},
                        {"--k", to_string(a.k)},
                        {"--dtype", a.dtype},
                        {"--transa", a.transa},
                        {"--transb", a.transb},
                        {"--grid", a.grid},
                        {"--zeros", plan_text(std::vector<double>{a.zeros})},
                        {"--codec", plan_text(a.codecs)},
                        {"--bound-rel", plan_text(a.bound_rel)},
                        {"--bound-abs", plan_text(a.bound_abs)},
                        {"--reference", a.reference},
                        {"--seed", to_string(a.seed)},
                        {"--repeat", to_string(a.repeat)},
                        {"--warmup", to_string(a.warmup)},
                        {"--overlap", a.overlap},
                        {"--panel", to_string(a.panel)}},
                       local, comm);
}

}  // namespace commpress::cli
