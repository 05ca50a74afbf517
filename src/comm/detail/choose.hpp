// What Algorithm::Auto runs, one function per operation: the single place where the cost
// model (src/comm/select.*) hooks in. A forced algorithm passes through unchanged. Every
// rank must reach the same answer (the choice is agreed on afterwards, and a disagreement
// fails the call on every rank). With Auto the collectives' functions are collective
// (one small allreduce agreeing on the data's sampled compression ratio): call them on
// every rank, whatever the arguments.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "commpress/comm.hpp"

namespace commpress::comm::detail {

struct Choice {
  Algorithm algorithm = Algorithm::Auto;  // never Auto once chosen
  Options options;                        // the caller's, with the chunk size Auto chose
  double predicted_seconds = 0;           // the model's estimate (Report::predicted_seconds)
  bool compress = true;                   // point-to-point: false when Auto declined the codec
};

Choice choose_p2p(const Options& opts, size_t count, Dtype dtype);
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
