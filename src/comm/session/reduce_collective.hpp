// The frame around reduce_scatter_block, allreduce and reduce: the collective argument
// agreement (begin_collective plus op, break-even size and pretend nodes, agreed in the same
// round trip that reduces the global value range), the plan made from what was agreed
// (planning.hpp: algorithm, wire, node layout, error budget), which the verb then executes,
// and the Report with the bound actually guaranteed.
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "comm/algorithms/parts/reduce_context.hpp"
#include "comm/selection/error_budget.hpp"
#include "comm/session/collective.hpp"
#include "commpress/collective_plan.hpp"

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
  // Executing a plan made earlier: the call must match it (else every rank fails).
  const CollectivePlan* given = nullptr;
  // Planning only: nothing is copied on the way (no output, no shared-window slot).
  bool plan_only = false;
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
  // What runs: the plan's (Hierarchical's cross-node ring on uneven nodes).
  Algorithm algorithm() const { return c_.algorithm; }
  const CollectivePlan& plan() const { return plan_; }
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

  // What the algorithms work with: the wire carries the plan's step bound.
  ReduceContext context() { return {c_.comm, c_.rank, c_.size, c_.wire, op_, break_even_, traffic_, first_}; }
  Traffic& traffic() { return traffic_; }

  // Collective: agrees on the outcome of the algorithm (st: its MPI-level status) and
  // reports what ran.
  Result<Report> end(const Status& st);

 private:
  Collective c_;
  CollectivePlan plan_;
  Op op_ = Op::sum;
  size_t break_even_ = 0;
  int pretend_ = 0;
  bool input_in_output_ = false;
  std::byte* input_slot_ = nullptr;
  bool inputs_in_slots_ = false;
  Traffic traffic_;
  Status first_;
};

// The three public entries of a reduction without a root (allreduce, reduce_scatter_block):
// the call with options (Auto's choice, then the agreement and the plan), the call with a
// plan made earlier (agreed as given), and the plan alone. Each verb gives its own steps:
// choose (Auto's candidate, before the agreement), begin (the agreement with its local checks,
// ReduceSession::begin) and execute (runs the session's plan).
struct ReductionVerb {
  Choice (*choose)(const Options& opts, const void* send, size_t count, Dtype dtype, Op op,
                   MPI_Comm comm);
  Result<std::unique_ptr<ReduceSession>> (*begin)(const void* send, void* recv, size_t count,
                                                   Dtype dtype, Op op, MPI_Comm comm,
                                                   Choice& choice, const CollectivePlan* given,
                                                   bool plan_only);
  Result<Report> (*execute)(ReduceSession& s, const void* send, void* recv, size_t count);

  Result<Report> run(const void* send, void* recv, size_t count, Dtype dtype, Op op,
                     MPI_Comm comm, const Options& opts) const;
  Result<Report> run(const CollectivePlan& plan, const void* send, void* recv,
                     MPI_Comm comm) const;
  Result<CollectivePlan> plan(const void* send, size_t count, Dtype dtype, Op op, MPI_Comm comm,
                              const Options& opts) const;
};

}  // namespace commpress::comm::detail
