#include <string>

#include "commpress/comm.hpp"

namespace commpress::comm {

Result<Algorithm> parse_algorithm(std::string_view name) {
  if (name == algorithm_name(Algorithm::Auto)) return Algorithm::Auto;
  std::string known = algorithm_name(Algorithm::Auto);
  for (const AlgorithmInfo& info : kAlgorithms) {
    if (name == info.name) return info.id;
    known += ", " + std::string(info.name);
  }
  return Status{ErrorCode::invalid_argument,
                "unknown algorithm '" + std::string(name) + "'; known: " + known};
}

const char* op_name(Op op) {
  switch (op) {
    case Op::sum: return "sum";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::prod: return "prod";
  }
  return "?";
}

}  // namespace commpress::comm
