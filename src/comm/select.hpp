// Algorithm::Auto's decision: the cost models (include/commpress/model.hpp) evaluated on the
// machine profile in force and on the compression ratio sampled from the call's own data.
// Returns the algorithm (Mpi when compression would not pay), the chunk size and the
// predicted time. Every rank of a collective reaches the same decision: the ratio samples
// ride in the argument agreement's round trip (AutoSelection), and the rest of the decision
// depends only on arguments the ranks agree on in that same round trip.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "comm/selection/agreed_ratios.hpp"
#include "commpress/collective_plan.hpp"
#include "commpress/comm.hpp"
#include "commpress/model.hpp"

namespace commpress::comm::detail {

struct Selection {
  Algorithm algorithm = Algorithm::Mpi;  // never Auto
  size_t chunk_bytes = 0;                // to run with; 0 = the caller's Options::chunk_bytes
  double predicted_seconds = 0;          // the model's estimate for algorithm (0 = none)
  size_t break_even_bytes = 0;           // reductions: compress transfers at least this big
                                         // (0 = unknown: compression never pays, or no rates)
  bool compress = true;                  // point-to-point: false when Auto declined the codec
  // A forced algorithm: this rank's sampled ratios (0 = none), for the agreement to take the
  // worst of, so that the plan's prediction is the same on every rank.
  SampledRatios sample;
  // Auto weighing the codec modes (weighs_codec_modes): the mode chosen, to run in place of
  // the options' codec ("" = the options' own), and every mode weighed.
  std::string codec;
  std::vector<CodecModeTime> modes;
};

// The codec modes Auto weighs (issue 18; docs/szp-modes.md): the fast one, whose frames sum
// homomorphically, and the entropy-coded one, which the reductions run
// decompress-operate-compress.
inline constexpr const char* kFastMode = "szp";
inline constexpr const char* kEntropyMode = "szp-eh";
// Whether Auto weighs them for these options: codec "auto" under a lossy bound, the
// algorithm Auto. (The dtype is judged by the modes' rates: a profile has none for a dtype
// szp lacks.)
bool weighs_codec_modes(const Options& opts);

struct SelectCall {
  model::Operation op;
  size_t count;                 // the operation's count argument
  Dtype dtype;
  Op reduce_op = Op::sum;
  const void* data = nullptr;   // this rank's contribution, sampled for the ratio (may be null)
  size_t data_count = 0;
  // false: no compressed algorithm could honour the request (nothing to compress with, a
  // dtype the codec lacks, a lossy prod), so Auto runs uncompressed without sampling.
  bool compressible = true;
};

// The profile in force: set_machine_profile's, else the file named by COMMPRESS_PROFILE
// (read once; an unreadable file is reported once on stderr and ignored), else the probed
// profile of the communicator last used (probe/probed_profile.*), else, before any probe
// (point-to-point calls only), an unmeasured one: no codec rates.
const model::MachineProfile& machine_profile();
void set_machine_profile(std::optional<model::MachineProfile> profile);
// Whether a profile is given (set_machine_profile, or a readable COMMPRESS_PROFILE): no probe.
bool machine_profile_given();
// A probed profile kept for the process's life (equal ones share one copy: calls in flight
// may still read an older one), and the one in force from now on (null: none).
const model::MachineProfile* keep_probed_profile(model::MachineProfile m);
void use_probed_profile(const model::MachineProfile* kept);

// Collectives, a forced algorithm: passes through, predicted from this rank's own sample
// (no communication).
Selection select_forced(const SelectCall& call, const Options& opts, int ranks);

// Collectives, Auto where nothing can be compressed: MPI's own, or the uncompressed algorithm
// the profile measured faster (from the profile, the count and the rank count only).
Selection select_uncompressed(const SelectCall& call, const Options& opts, int ranks);

// Collectives, Auto: the decision in two halves around the argument agreement, so that it
// costs no round trip of its own. The constructor does the local half (candidates, and this
// rank's ratio sample when some ratio could make compression pay); `mins` is what this rank
// adds to the agreement (kMins doubles whose minimum over the ranks is taken: the worst
// sampled ratio, at the bound and finer, the most oversubscribed node, and the entropy mode's
// worst ratios where the codec modes are weighed); `decide` turns
// the agreed minima into the same Selection on every rank, given the same arguments and the
// same machine profile (both agreed on too).
class AutoSelection {
 public:
  // The fast (or given) codec's ratios at the bound and finer, -oversubscription, the
  // entropy mode's ratios at the bound and finer, and each ratio's unit-range bits
  // (selection_slot).
  static constexpr size_t kMins = selection_slot::count;
  AutoSelection(const SelectCall& call, const Options& opts, int ranks);
  // Neutral contributions, for ranks that do not select (a disagreeing rank still sends
  // as many values as the others).
  static std::vector<double> no_mins();
  std::vector<double> mins() const;
  // one_node: every rank runs on one node (agreed).
  Selection decide(const double* agreed_mins, bool one_node) const;
  // Whether MPI's own operation will run, as far as this rank can tell alone: the model's
  // choice with this rank's own sample (or with none, where no ratio could make compression
  // pay). The agreed ratio is the ranks' worst and the agreed oversubscription their largest,
  // so where this says MPI the agreed decision does too; where it does not, it may still.
  bool expects_mpi() const { return expects_mpi_; }
  // Whether that uncompressed way would be SharedWindow if the ranks share one node (which
  // only the agreement tells): where an input copy made before the agreement should go.
  bool expects_window() const { return expects_window_; }

 private:
  SelectCall call_;
  Options opts_;
  int ranks_ = 1;
  SampledRatios sample_;  // this rank's (0 = none)
  double oversubscription_ = 1;
  bool expects_mpi_ = true;
  bool expects_window_ = false;
};

// Pure: the selection the agreed values make on `profile` (null: the profile in force): a
// forced algorithm's prediction from the agreed ratios, Auto's choice as
// AutoSelection::decide makes it. agreed: the AutoSelection::kMins agreed minima.
Selection select_agreed(const SelectCall& call, const Options& opts, int ranks,
                        const model::MachineProfile* profile, const double* agreed,
                        bool one_node);

// Ranks of this job on this node per core (>= 1), from the launcher's environment (Open MPI,
// MPICH); 1 when unknown.
double local_oversubscription();

// A fingerprint of the profile in force, for the ranks to agree that they use the same one.
int64_t machine_profile_fingerprint();

// Point-to-point: both ends decide alone from count, dtype and options, with the codec's
// typical ratio from the profile (the receiver has no data to sample). Auto keeps the
// header protocol (it lets the receiver check codec, bound and count against the sender's),
// chooses the chunk size, and sends the chunks uncompressed when the model finds that
// compressing would not pay (compress = false); the header tells the receiver which.
// profile: null for the profile in force. ratio: the ratio the message is known to achieve,
// in place of the typical one (0: the typical one, all a send knows before compressing).
Selection select_p2p(const Options& opts, size_t count, Dtype dtype,
                     const model::MachineProfile* profile = nullptr, double ratio = 0);

}  // namespace commpress::comm::detail
