// Planning a collective (commpress/collective_plan.hpp): the one place where what a call runs
// is decided, from agreed values only. The verbs plan here after their argument agreement
// (ReduceSession) and execute the plan; the public pure plan_* functions plan here too.
#pragma once

#include <string>

#include "comm/select.hpp"
#include "comm/selection/choose.hpp"
#include "comm/session/collective.hpp"
#include "comm/transport/wire.hpp"
#include "commpress/collective_plan.hpp"

namespace commpress::comm::detail {

// Pure: the plan of an agreed call whose algorithm is settled (sel: forced, or Auto's
// decision), with opts the caller's options (their chunk size, else sel's).
Result<CollectivePlan> plan_from_selection(const AgreedCall& call, const Selection& sel,
                                           const Options& opts);

// The options that make the plan's wire and name its algorithm (for executing a plan).
Options options_of(const CollectivePlan& plan);

// Executing a plan: its choices, settled, for begin_collective to agree on.
Choice choice_of(const CollectivePlan& plan);
// A local check for begin_collective: the plan is one of this operation on this many ranks.
Status matches_plan(const CollectivePlan& plan, model::Operation operation, const char* name,
                    int size);

// After begin_collective: the plan of the agreed call (call: its operation's own fields, lo
// and hi; the rest is taken from c), with the choice settled there. A forced algorithm's
// prediction is made from the agreed (worst) sample, so that the plan is the same on every
// rank; a given plan keeps its own.
Result<CollectivePlan> plan_agreed(const Collective& c, AgreedCall call, const Choice& choice,
                                   const CollectivePlan* given);

// A movement collective (bcast, allgather, scatter, gather) once agreed, with its bound
// resolved (resolve_bound): its plan (plan_agreed over call, whose operation, count, dtype and
// root the caller sets), the bound every frame honours being the one resolved on the data.
struct PlannedCall {
  Collective c;
  CollectivePlan plan;
};
Result<PlannedCall> plan_movement(const Collective& c, AgreedCall call, const Choice& choice,
                                  const CollectivePlan* given);

// The end of executing a plan: end_collective, the plan's prediction in the report.
Result<Report> end_planned(const PlannedCall& p, const Status& local, const Traffic& traffic);

// Point-to-point's plan (profile: null for the profile in force): Direct or Mpi, the chunks'
// wire, whether they go compressed. Fails on an algorithm point-to-point lacks or options
// that make no wire. ratio: as select_p2p's.
Result<CollectivePlan> plan_p2p(size_t count, Dtype dtype, const Options& opts,
                                const model::MachineProfile* profile, double ratio = 0);

// A reduction's requirements on algorithm, codec and op that hold whatever the data
// (name: the verb, for messages).
Status check_reduction(Algorithm algorithm, const Wire& wire, Op op, const char* name);

bool is_reduction(model::Operation op);

}  // namespace commpress::comm::detail
