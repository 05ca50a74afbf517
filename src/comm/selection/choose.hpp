// What Algorithm::Auto runs, one function per operation: the single place where the cost
// model (src/comm/select.*) hooks in. A forced algorithm passes through unchanged. None
// communicates: Auto's choice is left pending, and begin_collective settles it in the
// argument agreement's round trip, identically on every rank.
#pragma once

#include <mpi.h>

#include <cstddef>

#include <memory>

#include "comm/select.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct Choice {
  Algorithm algorithm = Algorithm::Auto;  // Auto while `pending` waits for the agreement
  Options options;                        // the caller's, with the chunk size Auto chose
  double predicted_seconds = 0;           // the model's estimate (Report::predicted_seconds)
  size_t break_even_bytes = 0;            // reductions: the model's (0 = no finite value)
  // Auto's second half: begin_collective settles it from the values the ranks agree on.
  std::shared_ptr<const AutoSelection> pending;
  // A forced algorithm: this rank's sampled ratios (0 = none).
  SampledRatios sample;
  // The codec modes Auto weighed (Selection::modes); the one chosen is options.codec.
  std::vector<CodecModeTime> modes;

  void settle(const Selection& s);
  // What this rank adds to the argument agreement for the selection (AutoSelection::kMins
  // values whose minima are taken): Auto's pending half, or a forced algorithm's sample.
  std::vector<double> mins() const;
};

// Any collective: forced (settled), or Auto (pending; settled at once to Mpi when the
// request leaves nothing to compress with: !call.compressible).
Choice choose_collective(const SelectCall& call, const Options& opts, int ranks);

Choice choose_bcast(const Options& opts, const void* buf, size_t count, Dtype dtype, int root,
                    MPI_Comm comm);
Choice choose_allgather(const Options& opts, const void* send, const void* recv, size_t count,
                        Dtype dtype, MPI_Comm comm);
Choice choose_scatter(const Options& opts, const void* send, size_t count, Dtype dtype, int root,
                      MPI_Comm comm);
Choice choose_gather(const Options& opts, const void* send, const void* recv, size_t count,
                     Dtype dtype, int root, MPI_Comm comm);

// The report with the choice's prediction filled in.
Result<Report> with_prediction(Result<Report> r, const Choice& choice);

}  // namespace commpress::comm::detail
