// Plans of the collectives: everything a call decides before any data moves (algorithm,
// codec, chunking, the break-even size, the node layout Hierarchical runs on and the ring it
// runs instead on uneven nodes, the per-step error bound and the bound guaranteed on the
// result, the model's time), as one value. plan_* below are pure functions of what the
// argument agreement settles (AgreedCall), the machine profile and the options: every rank
// that agreed computes the same plan. The verbs of commpress/comm.hpp plan exactly this way
// after their agreement and then execute the plan; the overloads taking a plan execute a plan
// made earlier (the collective plan_* overloads make one from a call's own data).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "commpress/comm.hpp"
#include "commpress/model.hpp"

namespace commpress::comm {

// Which ranks share a node, as Hierarchical sees them (agreed: the ranks build it together).
struct NodeLayout {
  int ranks_per_node = 0;  // the pretend node size in use (0: real shared-memory nodes)
  int nodes = 1;
  int local_size = 1;      // ranks on every node (0 where uneven)
  bool even = true;        // every node has local_size ranks
};

// What every rank holds once the argument agreement is done.
struct AgreedCall {
  model::Operation operation = model::Operation::allreduce;
  int ranks = 1;              // the communicator's size
  size_t count = 0;           // as the verb takes it (per rank where the verb's is per rank)
  Dtype dtype = Dtype::f32;
  Op op = Op::sum;            // reductions
  int root = 0;               // reduce, bcast
  // The global range of the finite inputs (lo > hi: none): a REL bound and the rounding
  // allowance of a reduction are resolved against it.
  double lo = 1, hi = 0;
  // The worst rank's sampled compression ratio at the bound and at the finest step a
  // reduction quantizes with (0: not sampled), and the most oversubscribed node.
  double ratio_at_bound = 0, ratio_at_fine = 0;
  // The same for the entropy mode (szp-eh), sampled where Auto weighs the codec modes
  // (codec "auto", a lossy bound, Algorithm::Auto; docs/szp-modes.md). 0: not sampled, and
  // the mode is not weighed.
  double entropy_ratio_at_bound = 0, entropy_ratio_at_fine = 0;
  double oversubscription = 1;
  bool one_node = false;      // every rank runs on one node
  NodeLayout nodes;           // read where the algorithm is Hierarchical
  // Reductions: transfers below this size go raw (Rabenseifner); SIZE_MAX: the model's value.
  size_t break_even_bytes = SIZE_MAX;
};

// One codec mode Auto weighed: the algorithm it would run with and the model's time for it
// (algorithm Auto: not weighed, the profile having no rates for it or no ratio sampled).
struct CodecModeTime {
  std::string codec;
  Algorithm algorithm = Algorithm::Auto;
  double predicted_seconds = 0;
};

struct CollectivePlan {
  model::Operation operation = model::Operation::allreduce;
  int ranks = 1;
  size_t count = 0;
  Dtype dtype = Dtype::f32;
  Op op = Op::sum;
  int root = 0;
  Algorithm algorithm = Algorithm::Mpi;  // chosen (never Auto)
  // What executes: the algorithm, or for Hierarchical on uneven nodes its cross-node ring
  // over every rank (HomomorphicRing for sums with szp, DocRing otherwise).
  Algorithm runs = Algorithm::Mpi;
  std::string codec = "none";            // "none": nothing is compressed
  ErrorBound bound = ErrorBound::lossless();  // as requested, on the result
  size_t chunk_bytes = 0;                // uncompressed bytes per chunk frame
  size_t break_even_bytes = 0;           // reductions: smaller transfers go raw
  NodeLayout nodes;                      // Hierarchical's (default elsewhere)
  double lo = 1, hi = 0;                 // the range the bounds below were resolved on
  // The error budget (reductions; docs/error-bounds.md): how many step bounds the result's
  // error adds up to (sum) or chains (min/max), the bound each compression honours, and the
  // bound guaranteed on every element of the result. Movement operations: step = guaranteed.
  int quantized_additive = 0, quantized_depth = 0;
  double requested_abs_bound = 0, step_abs_bound = 0, guaranteed_abs_bound = 0;
  double predicted_seconds = 0;          // the model's (0: not modelled)
  // Where Auto weighed the codec modes (codec "auto" under a lossy bound): each mode, the
  // chosen one (`codec`) among them; empty where the codec was given.
  std::vector<CodecModeTime> modes;
  // Point-to-point: false where Auto found that compressing would not pay; the header then
  // announces the codec (both ends check it) and the chunks travel uncompressed.
  bool compress = true;
};

// Pure: the plan for an agreed call on a profile. Fails where the call cannot run as asked
// (an algorithm that does not serve the operation, a bound that leaves no room beside the
// rounding allowance, ...), identically on every rank.
Result<CollectivePlan> plan_collective(const AgreedCall& call, const model::MachineProfile& profile,
                                       const Options& opts);
Result<CollectivePlan> plan_allreduce(AgreedCall call, const model::MachineProfile& profile,
                                      const Options& opts);
Result<CollectivePlan> plan_reduce_scatter_block(AgreedCall call,
                                                 const model::MachineProfile& profile,
                                                 const Options& opts);
Result<CollectivePlan> plan_reduce(AgreedCall call, const model::MachineProfile& profile,
                                   const Options& opts);
Result<CollectivePlan> plan_bcast(AgreedCall call, const model::MachineProfile& profile,
                                  const Options& opts);
Result<CollectivePlan> plan_allgather(AgreedCall call, const model::MachineProfile& profile,
                                      const Options& opts);
Result<CollectivePlan> plan_scatter(AgreedCall call, const model::MachineProfile& profile,
                                    const Options& opts);
Result<CollectivePlan> plan_gather(AgreedCall call, const model::MachineProfile& profile,
                                   const Options& opts);

// Point-to-point (send, isend): the sender's plan, from its own call alone (no agreement:
// the receiver follows what the sender's header announces); ranks is 2. A send plans with
// the profile's typical ratio, all it knows before compressing; ratio > 0 plans with the
// ratio the message is known to achieve instead (a measured transfer's, to compare the
// model with it). plan_collective with operation p2p plans the same, with
// AgreedCall::ratio_at_bound as ratio.
Result<CollectivePlan> plan_p2p(size_t count, Dtype dtype, const model::MachineProfile& profile,
                                const Options& opts, double ratio = 0);

// Collective: the plan the verb would run for this call (its agreement on the arguments and
// the data's range, then planning as the verb does), on the profile in force. Moves no data.
Result<CollectivePlan> plan_allreduce(const void* send, size_t count, Dtype dtype, Op op,
                                      MPI_Comm comm, const Options& opts = {});
Result<CollectivePlan> plan_reduce_scatter_block(const void* send, size_t count_per_rank,
                                                 Dtype dtype, Op op, MPI_Comm comm,
                                                 const Options& opts = {});
Result<CollectivePlan> plan_reduce(const void* send, size_t count, Dtype dtype, Op op, int root,
                                   MPI_Comm comm, const Options& opts = {});
// buf: the root's data (the others' may be null); send: this rank's block.
Result<CollectivePlan> plan_bcast(const void* buf, size_t count, Dtype dtype, int root,
                                  MPI_Comm comm, const Options& opts = {});
Result<CollectivePlan> plan_allgather(const void* send, size_t count_per_rank, Dtype dtype,
                                      MPI_Comm comm, const Options& opts = {});
// send: the root's p blocks (the others' may be null).
Result<CollectivePlan> plan_scatter(const void* send, size_t count_per_rank, Dtype dtype,
                                    int root, MPI_Comm comm, const Options& opts = {});
// send: this rank's block.
Result<CollectivePlan> plan_gather(const void* send, size_t count_per_rank, Dtype dtype, int root,
                                   MPI_Comm comm, const Options& opts = {});

// Collective: execute a plan. Every rank must pass the same plan and buffers matching its call
// (operation, count, dtype, op, root, communicator size: anything else fails every rank with
// the field named). The ranks agree on the plan and on the inputs' range; where that range
// differs from the plan's, the error budget is resolved again on it (the plan's quantization
// count, the one step that needs the data), and nothing else is decided.
Result<Report> allreduce(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm);
Result<Report> reduce_scatter_block(const CollectivePlan& plan, const void* send, void* recv,
                                    MPI_Comm comm);
Result<Report> reduce(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm);
// The movement operations have no error budget: their REL bound is resolved against the data
// as the verb does (the plan's own bound fields say what the data it was made from gave).
Result<Report> bcast(const CollectivePlan& plan, void* buf, MPI_Comm comm);
Result<Report> allgather(const CollectivePlan& plan, const void* send, void* recv,
                         MPI_Comm comm);
Result<Report> scatter(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm);
Result<Report> gather(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm);

// The plan as "key: value" lines and as one JSON object (the tool prints both).
std::string plan_to_text(const CollectivePlan& plan);
std::string plan_to_json(const CollectivePlan& plan);

}  // namespace commpress::comm
