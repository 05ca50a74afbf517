// The frame around every collective, so all ranks always reach the same verdict:
//   begin_collective  local checks, then one agreement on the arguments (operation, count,
//                     dtype, root, codec, bound, algorithm, chunk size) folding in every local
//                     verdict (a count too large for any buffer among them) and,
//                     for Auto, the ratio samples its choice is settled from;
//   resolve_bound     a REL bound turned into one ABS bound from the global value range;
//   end_collective    the local outcomes agreed (any failure fails every rank; not after MPI's
//                     own operation) and the Report.
#pragma once

#include <mpi.h>

#include <array>
#include <functional>
#include <vector>

#include "comm/selection/choose.hpp"
#include "comm/session/agreement.hpp"
#include "comm/transport/frame_transport.hpp"
#include "commpress/comm.hpp"
#include "commpress/model.hpp"

namespace commpress::comm::detail {

struct Collective {
  MPI_Comm comm = MPI_COMM_NULL;  // the private duplicate (MPI_ERRORS_RETURN)
  int rank = 0;
  int size = 1;
  Algorithm algorithm = Algorithm::Auto;
  Wire wire;              // uncompressed for Algorithm::Mpi
  bool one_node = false;  // every rank runs on one node (agreed): SharedWindow can run
  // The selection's agreed minima (AutoSelection::mins: worst ratios, -oversubscription).
  std::array<double, AutoSelection::kMins> selection{};
};

// The uncompressed algorithms: MPI's own, and those commpress runs in its stead where MPI's is
// measured slower (they only call MPI and add: nothing of commpress's can fail in them).
inline bool runs_uncompressed(Algorithm a) { return a != Algorithm::Auto && !is_compressed(a); }

struct CollectiveCall {
  model::Operation operation;  // agreed first: ranks in different operations fail on it
  const char* op;              // "bcast", ... (for messages)
  size_t count;                // per-rank count as the caller passed it
  Dtype dtype;
  int root;  // 0 for operations without a root (agreed all the same)
  bool has_root;
  // Some buffer holds one count per rank (allgather, scatter, gather, reduce_scatter_block):
  // the size check covers all of them.
  bool per_rank = false;
};

// What an operation adds to the argument agreement's single round trip: more fields that
// must match (judged after the local verdicts), and doubles replaced by their minimum over
// the ranks (e.g. [lo, -hi]). At most kOwnFields and kOwnMins: every operation's agreement
// has the same length (padded), so ranks in different operations still meet in one
// allreduce and fail on its first field, the operation.
struct AgreementExtras {
  std::vector<Field> fields;
  std::vector<double> mins;
  // Whether the mins begin with the inputs' range {lo, -hi, 1} (range_extras', agreed where
  // the last minimum is 1): the agreed ratios are re-priced at it (agreed_ratios.hpp). Not the
  // reductions': their frames carry partial sums, which the sample's own range prices closer
  // (bench/results/scale.md, 2026-11-29 (late)).
  bool reprices_at_range = false;
};
inline constexpr size_t kOwnFields = 3, kOwnMins = 3;

// A REL bound's range carried by the argument agreement (AgreementExtras' mins: {lo, -hi,
// carried}) by the operations that move data (bcast, allgather, scatter, gather), as the
// reductions carry theirs, instead of an allreduce after it: this rank's finite range of
// data[0..n) (null or empty: nothing to contribute) where the call may compress (a REL bound
// on f32/f64 data and a codec, with a compressed algorithm or Auto not expecting MPI's own).
// A rank that takes none says so, and the ranks then agree the range afterwards
// (resolve_bound), as where Auto's agreed choice compresses after all.
AgreementExtras range_extras(const Choice& choice, Dtype dtype, const void* data, size_t n);
// This rank's rank and the size of comm (through its private duplicate, as begin_collective
// sees them), before the agreement; {-1, 0} where comm has none (begin_collective then fails).
struct Place {
  int rank = -1, size = 0;
};
Place place_in(MPI_Comm comm);

// local_checks sees rank, size, algorithm and wire (buffers, message sizes...); its verdict
// is folded into the agreement, so a bad argument on one rank fails every rank. A pending
// Auto choice is settled from the agreed values (choice updated; the checks run again on
// what it chose, where they can only fail alike everywhere: what they see is agreed by then).
// Until then local_checks sees Algorithm::Auto with the codec's wire.
Result<Collective> begin_collective(MPI_Comm user_comm, const CollectiveCall& call, Choice& choice,
                                    const std::function<Status(const Collective&)>& local_checks,
                                    AgreementExtras* extras = nullptr);

// Collective: resolves a REL bound from the finite range of every rank's contribution: the
// range agreed in begin_collective's extras (range_extras) where every rank carried its part,
// otherwise one small allreduce over data[0..n).
Status resolve_bound(Collective& c, const AgreementExtras& agreed, const void* data, size_t n);

// Collective: agrees on the outcome, then reports what ran, the traffic and the bound. After
// an uncompressed algorithm (runs_uncompressed) there is nothing of commpress's left to fail,
// so no round trip is spent: the result stands as MPI reports it on each rank.
Result<Report> end_collective(const Collective& c, const Status& local, const Traffic& traffic);

}  // namespace commpress::comm::detail
