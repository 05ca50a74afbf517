#include <array>
#include <utility>

#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

constexpr std::array<std::pair<Algorithm, const char*>, 15> kNames = {{
    {Algorithm::Auto, "auto"},
    {Algorithm::Mpi, "mpi"},
    {Algorithm::Direct, "direct"},
    {Algorithm::Binomial, "binomial"},
    {Algorithm::Ring, "ring"},
    {Algorithm::RecursiveDoubling, "recursive_doubling"},
    {Algorithm::DocRing, "doc_ring"},
    {Algorithm::HomomorphicRing, "homomorphic_ring"},
    {Algorithm::FusedRing, "fused_ring"},
    {Algorithm::HomomorphicRecursiveDoubling, "homomorphic_recursive_doubling"},
    {Algorithm::Rabenseifner, "rabenseifner"},
    {Algorithm::Hierarchical, "hierarchical"},
    {Algorithm::PlainRing, "plain_ring"},
    {Algorithm::PlainBinomial, "plain_binomial"},
    {Algorithm::SharedWindow, "shared_window"},
}};

}  // namespace

const char* algorithm_name(Algorithm a) {
  for (const auto& [alg, name] : kNames)
    if (alg == a) return name;
  return "?";
}

Result<Algorithm> parse_algorithm(std::string_view name) {
  std::string known;
  for (const auto& [alg, n] : kNames) {
    if (name == n) return alg;
    known += (known.empty() ? "" : ", ") + std::string(n);
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
