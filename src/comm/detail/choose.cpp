#include "comm/detail/choose.hpp"

namespace commpress::comm::detail {

namespace {

Algorithm forced_or(const Options& opts, Algorithm fallback) {
  return opts.algorithm == Algorithm::Auto ? fallback : opts.algorithm;
}

}  // namespace

// Until the cost model decides, Auto runs the compressed algorithm.
Algorithm choose_p2p(const Options& opts, size_t, Dtype) {
  return forced_or(opts, Algorithm::Direct);
}
Algorithm choose_bcast(const Options& opts, size_t, Dtype, MPI_Comm) {
  return forced_or(opts, Algorithm::Binomial);
}
Algorithm choose_allgather(const Options& opts, size_t, Dtype, MPI_Comm) {
  return forced_or(opts, Algorithm::Ring);
}
Algorithm choose_scatter(const Options& opts, size_t, Dtype, MPI_Comm) {
  return forced_or(opts, Algorithm::Binomial);
}
Algorithm choose_gather(const Options& opts, size_t, Dtype, MPI_Comm) {
  return forced_or(opts, Algorithm::Binomial);
}

}  // namespace commpress::comm::detail
