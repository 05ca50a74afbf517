#include "cli/bench_collective_agreement.hpp"

#include <string>
#include <vector>

#include "cli/bench_plan_agreement.hpp"

namespace commpress::cli {

Status agree_on_plan(const BenchCollectiveArgs& a, const Status& local, MPI_Comm comm) {
  using std::to_string;
  return agree_on_plan({{"--op", a.op},
                        {"--algorithm", plan_text(a.algorithms)},
                        {"--count", to_string(a.count)},
                        {"--dtype", a.dtype},
                        {"--data", a.data},
                        {"--input", a.input},
                        {"--seed", to_string(a.seed)},
                        {"--bound-abs", plan_text(a.bound_abs)},
                        {"--bound-rel", plan_text(a.bound_rel)},
                        {"--lossless", a.lossless},
                        {"--codec", a.codec},
                        {"--repeat", to_string(a.repeat)},
                        {"--warmup", to_string(a.warmup)},
                        {"--chunk-bytes", to_string(a.chunk_bytes)},
                        {"--pretend-ranks-per-node", to_string(a.pretend_ranks_per_node)},
                        {"--root", to_string(a.root)}},
                       local, comm);
}

}  // namespace commpress::cli
