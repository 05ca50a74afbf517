// The frame around reduce_scatter_block, allreduce and reduce: the collective argument
// agreement (begin_collective plus op, break-even size and pretend nodes, agreed in the same
// round trip that reduces the global value range), the error budget planned from the
// algorithm's structure, and the Report with the bound actually guaranteed.
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "comm/detail/collective.hpp"
#include "comm/detail/error_budget.hpp"
#include "comm/detail/reduce_context.hpp"

namespace commpress::comm::detail {

struct ReduceCall {
  model::Operation operation;
  const char* name;      // "allreduce", ... (for messages)
  size_t count;          // as the caller passed it (agreed on)
  Dtype dtype;
  Op op;
  int root;
  bool has_root;
  const void* input;     // this rank's contribution, for the value range
  size_t input_count;
  // An out-of-place output MPI's own operation would first copy the input into (allreduce):
  // when that is the likely path, the range pass makes the copy and MPI runs in place.
  void* output = nullptr;
  bool per_rank = false;  // count is each rank's block of the input (reduce_scatter_block)
};

class ReduceSession {
 public:
  // Collective. local_checks sees the collective (wire, algorithm) like begin_collective's,
  // which settles a pending Auto choice (choice updated, break-even size set from it).
  static Result<std::unique_ptr<ReduceSession>> begin(
      MPI_Comm comm, const ReduceCall& call, Choice& choice,
      const std::function<Status(const Collective&)>& local_checks);

  int rank() const { return c_.rank; }
  int size() const { return c_.size; }
  Algorithm algorithm() const { return c_.algorithm; }
  const Wire& wire() const { return c_.wire; }
  Op op() const { return op_; }
  MPI_Comm comm() const { return c_.comm; }
  int pretend_ranks_per_node() const { return pretend_; }
  // The input already sits in ReduceCall::output (MPI's own operation may run in place).
  bool input_in_output() const { return input_in_output_; }
  // The input already sits in SharedWindow's input slot (null if not).
  const std::byte* input_slot() const { return input_slot_; }
  // Every rank's input sits in its slot, written before the agreement.
  bool inputs_in_slots() const { return inputs_in_slots_; }

  // Plans the step bound for an algorithm whose result over `inputs` ranks quantizes as q;
  // the wire then carries it. Deterministic from agreed values, so every rank fails alike.
  Status plan(QuantizationCount q, int inputs);
  // What the algorithms work with (take it after plan).
  ReduceContext context() { return {c_.comm, c_.rank, c_.size, c_.wire, op_, break_even_, traffic_, first_}; }
  Traffic& traffic() { return traffic_; }

  // Collective: agrees on the outcome of the algorithm (st: its MPI-level status) and
  // reports what ran.
  Result<Report> end(const Status& st, Algorithm ran);

 private:
  Collective c_;
  Op op_ = Op::sum;
  double lo_ = 0, hi_ = 0;
  double requested_ = 0;  // the user's bound as ABS (lossy wires only)
  size_t break_even_ = 0;
  int pretend_ = 0;
  double predicted_ = 0;
  bool input_in_output_ = false;
  std::byte* input_slot_ = nullptr;
  bool inputs_in_slots_ = false;
  Budget budget_;
  Traffic traffic_;
  Status first_;
};

}  // namespace commpress::comm::detail
