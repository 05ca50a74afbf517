#include "comm/algorithms/runner.hpp"

namespace commpress::comm::detail {

const Runner run_by_verb{};

const Runner& runner_of(Algorithm a) {
  switch (a) {
#define COMMPRESS_RUNNER_OF(id, value, name, c_name, literature, ops, compressed, homomorphic, \
                            cost, runner)                                                      \
  case Algorithm::id:                                                                          \
    return runner;
    COMMPRESS_COLLECTIVE_ALGORITHMS(COMMPRESS_RUNNER_OF)
#undef COMMPRESS_RUNNER_OF
    case Algorithm::Auto:
      break;
  }
  return run_by_verb;
}

}  // namespace commpress::comm::detail
