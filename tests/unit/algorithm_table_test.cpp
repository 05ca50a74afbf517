// The algorithm table (commpress/algorithm.hpp) and what is generated from it agree: names
// parse back, every row is priced and run for the operations it says it serves and for no
// other, and Auto tries the candidates in the order it always has.
#include "support/dev_box_profile.hpp"
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "comm/algorithms/runner.hpp"
#include "commpress/comm.hpp"
#include "commpress/model.hpp"

namespace {

using commpress::Algorithm;
using commpress::AlgorithmInfo;
using commpress::kAlgorithms;
using commpress::Operation;
namespace comm = commpress::comm;
namespace model = commpress::model;

constexpr Operation kOperations[] = {Operation::p2p,     Operation::bcast,
                                     Operation::allgather, Operation::scatter,
                                     Operation::gather,  Operation::reduce_scatter,
                                     Operation::allreduce, Operation::reduce,
                                     Operation::alltoall};

TEST(AlgorithmTable, NamesAreUniqueAndParseBack) {
  std::set<std::string> names{"auto"};
  for (const AlgorithmInfo& info : kAlgorithms) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_STREQ(comm::algorithm_name(info.id), info.name);
    auto parsed = comm::parse_algorithm(info.name);
    ASSERT_TRUE(parsed.ok()) << info.name;
    EXPECT_EQ(*parsed, info.id);
    EXPECT_NE(std::string(info.literature), "") << info.name;
  }
  EXPECT_EQ(*comm::parse_algorithm("auto"), Algorithm::Auto);
  EXPECT_STREQ(comm::algorithm_name(Algorithm(200)), "?");
  auto unknown = comm::parse_algorithm("cannon");
  ASSERT_FALSE(unknown.ok());
  for (const std::string& name : names)
    EXPECT_NE(unknown.status().message().find(name), std::string::npos) << name;
}

TEST(AlgorithmTable, AutoTriesTheCandidatesInTheirOrder) {
  const std::vector<Algorithm> reductions = {
      Algorithm::DocRing,      Algorithm::HomomorphicRing, Algorithm::FusedRing,
      Algorithm::HomomorphicRecursiveDoubling, Algorithm::Rabenseifner, Algorithm::Hierarchical};
  for (Operation op : {Operation::reduce_scatter, Operation::allreduce, Operation::reduce})
    EXPECT_EQ(model::compressed_algorithms(op), reductions);
  EXPECT_EQ(model::compressed_algorithms(Operation::allgather),
            (std::vector<Algorithm>{Algorithm::Ring, Algorithm::RecursiveDoubling}));
  EXPECT_EQ(model::uncompressed_algorithms(Operation::bcast),
            (std::vector<Algorithm>{Algorithm::PlainBinomial, Algorithm::SharedWindow}));
  EXPECT_EQ(model::uncompressed_algorithms(Operation::reduce_scatter),
            (std::vector<Algorithm>{Algorithm::PlainRing}));
  EXPECT_TRUE(model::uncompressed_algorithms(Operation::reduce).empty());
}

// Every compressed row has a finite cost for each operation it serves and none elsewhere.
TEST(AlgorithmTable, CostModelsCoverExactlyTheServedOperations) {
  const model::MachineProfile m = commpress::testing::dev_box_profile();
  const model::CodecRates* rates = m.rates("szp", commpress::codec::Dtype::f32);
  ASSERT_NE(rates, nullptr);
  for (const AlgorithmInfo& info : kAlgorithms) {
    for (Operation op : kOperations) {
      model::Scenario s;
      s.op = op;
      s.bytes = 1 << 20;
      s.ranks = op == Operation::p2p ? 2 : 4;
      s.ranks_per_node = 2;
      s.ratio.at_bound = 8;
      const double t = model::predict(m, rates, info.id, s);
      if (!info.serves(op)) {
        EXPECT_TRUE(std::isinf(t)) << info.name << " on " << model::operation_name(op);
      } else if (info.compressed || info.id == Algorithm::Mpi) {
        EXPECT_TRUE(std::isfinite(t) && t > 0) << info.name << " on " << model::operation_name(op);
      }
    }
  }
}

// The reductions' verbs run a row through its Runner: one for each reduction it serves.
TEST(AlgorithmTable, RunnersCoverExactlyTheServedReductions) {
  for (const AlgorithmInfo& info : kAlgorithms) {
    const comm::detail::Runner& r = comm::detail::runner_of(info.id);
    if (&r == &comm::detail::run_by_verb) {
      EXPECT_TRUE(info.id == Algorithm::Mpi || !(info.operations & commpress::kReductions))
          << info.name << " serves a reduction but has no runner";
      continue;
    }
    EXPECT_EQ(r.allreduce != nullptr, info.serves(Operation::allreduce)) << info.name;
    EXPECT_EQ(r.reduce_scatter != nullptr, info.serves(Operation::reduce_scatter)) << info.name;
    EXPECT_EQ(r.reduce != nullptr, info.serves(Operation::reduce)) << info.name;
  }
  EXPECT_EQ(&comm::detail::runner_of(Algorithm::Auto), &comm::detail::run_by_verb);
}

}  // namespace
