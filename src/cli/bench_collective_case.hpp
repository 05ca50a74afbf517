// One benchmarked operation on one rank: its buffers filled from the data source, the call
// through commpress or through MPI's own operation, and the check of the output against the
// exact result.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cli/bench_data.hpp"
#include "cli/bench_reference.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"

namespace commpress::cli {

enum class BenchOp { allreduce, reduce_scatter, bcast, allgather, scatter, gather, p2p };

Result<BenchOp> parse_bench_op(std::string_view name);
const char* bench_op_name(BenchOp op);

class BenchCase {
 public:
  // Collective over comm (every rank builds its own inputs and reference).
  static Result<std::unique_ptr<BenchCase>> make(BenchOp op, size_t count, codec::Dtype dtype,
                                                 int root, const DataSource& src, MPI_Comm comm);

  Result<comm::Report> run_commpress(const comm::Options& opts);
  Status run_mpi();  // MPI's own operation on the same buffers
  // The model's plan of MPI's own operation for this call, on the profile in force
  // (collective: the arguments are agreed; moves no data). Not offered for p2p.
  Result<comm::CollectivePlan> plan_mpi();

  // Fills the output with NaN, so a measurement that writes nothing fails its check.
  void poison_output();
  // This rank's largest error against the exact result (0 for ranks without output).
  double max_error() const;

  uint64_t input_bytes_per_rank() const;  // what each rank contributes
  // Bytes this rank sends in MPI's operation as the textbook algorithm moves them (ring for
  // allreduce, the minimum for the others): MPI's own traffic is not observable.
  uint64_t mpi_nominal_bytes() const;

 private:
  BenchCase() = default;
  bool in_pair() const;  // p2p: whether this rank sends or receives

  BenchOp op_ = BenchOp::allreduce;
  size_t count_ = 0;
  codec::Dtype dtype_ = codec::Dtype::f32;
  int root_ = 0, rank_ = 0, size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<std::byte> send_, recv_;  // bcast works in send_ alone
  std::unique_ptr<Reference> reference_;
};

}  // namespace commpress::cli
