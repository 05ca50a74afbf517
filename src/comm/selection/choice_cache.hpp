// model::choose remembered per thread for the last few scenarios. Auto prices each call
// twice (could any ratio pay? then, after the agreement, the agreed ratios), each time every
// candidate at ten chunk sizes, which costs more than the rest of commpress's path
// (docs/measured-choices.md). An iterative program repeats the same
// calls, and where no data was sampled the scenarios repeat exactly; the decision is a pure
// function of the profile (its fingerprint), the codec's rates, the scenario, the candidates
// and the margin. The reductions' break-even size (a search over sizes, ~8k instructions a
// call, also made when MPI's own runs) is remembered the same way.
#pragma once

#include <cstdint>
#include <span>

#include "commpress/model.hpp"

namespace commpress::comm::detail {

model::Choice remembered_choice(const model::MachineProfile& m, int64_t profile_fingerprint,
                                const model::CodecRates* rates, const model::Scenario& s,
                                std::span<const Algorithm> candidates,
                                double margin = model::kDefaultMargin);

double remembered_break_even(const model::MachineProfile& m, int64_t profile_fingerprint,
                             const model::CodecRates& rates, double ratio);

}  // namespace commpress::comm::detail
