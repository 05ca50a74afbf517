#include <array>
#include <string>

#include "commpress/linalg.hpp"

namespace commpress::linalg {

namespace {

struct Named {
  GemmAlgorithm algorithm;
  const char* name;
};

constexpr std::array<Named, 7> kNames{{{GemmAlgorithm::Auto, "auto"},
                                       {GemmAlgorithm::Cannon, "cannon"},
                                       {GemmAlgorithm::Summa, "summa"},
                                       {GemmAlgorithm::Srumma, "srumma"},
                                       {GemmAlgorithm::Cannon25D, "cannon25d"},
                                       {GemmAlgorithm::Summa25D, "summa25d"},
                                       {GemmAlgorithm::ScaLapack, "scalapack"}}};

}  // namespace

const char* gemm_algorithm_name(GemmAlgorithm a) {
  for (const Named& n : kNames)
    if (n.algorithm == a) return n.name;
  return "unknown";
}

Result<GemmAlgorithm> parse_gemm_algorithm(std::string_view name) {
  std::string known;
  for (const Named& n : kNames) {
    if (name == n.name) return n.algorithm;
    known += known.empty() ? n.name : std::string(", ") + n.name;
  }
  return Status{ErrorCode::invalid_argument,
                "unknown gemm algorithm '" + std::string(name) + "' (known: " + known + ")"};
}

}  // namespace commpress::linalg
