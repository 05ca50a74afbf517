// extern "C" shims for the opaque commpress_options handle. Setters check what they can
// locally (they are not collective); codec names are resolved when a call runs, where every
// rank agrees on the verdict.
#include <new>
#include <string>

#include "capi/capi_support.hpp"

using namespace commpress;
using namespace commpress::capi;

extern "C" {

commpress_status commpress_options_create(commpress_options** options) {
  return guarded("commpress_options_create", [&] {
    if (options == nullptr) return null_argument("commpress_options_create", "options");
    *options = new (std::nothrow) commpress_options{};
    if (*options == nullptr)
      return fail(ErrorCode::internal, "commpress_options_create: out of memory");
    return COMMPRESS_OK;
  });
}

commpress_status commpress_options_destroy(commpress_options* options) {
  delete options;
  return COMMPRESS_OK;
}

commpress_status commpress_options_set_codec(commpress_options* options, const char* codec) {
  return guarded("commpress_options_set_codec", [&] {
    if (options == nullptr) return null_argument("commpress_options_set_codec", "options");
    if (codec == nullptr) return null_argument("commpress_options_set_codec", "codec");
    options->options.codec = codec;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_options_set_bound(commpress_options* options,
                                             commpress_bound_mode mode, double value) {
  return guarded("commpress_options_set_bound", [&] {
    if (options == nullptr) return null_argument("commpress_options_set_bound", "options");
    auto bound = to_bound(mode, value);
    if (!bound.ok()) return record(bound.status());
    options->options.bound = *bound;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_options_set_algorithm(commpress_options* options,
                                                 commpress_algorithm algorithm) {
  return guarded("commpress_options_set_algorithm", [&] {
    if (options == nullptr) return null_argument("commpress_options_set_algorithm", "options");
    const int v = int(algorithm);
    // The algorithm table is the list: a range check went stale when the all-to-alls came.
    if (v != COMMPRESS_ALG_AUTO && !algorithm_info(comm::Algorithm(v)))
      return fail(ErrorCode::invalid_argument,
                  "commpress_options_set_algorithm: unknown algorithm " + std::to_string(v));
    options->options.algorithm = comm::Algorithm(v);
    return COMMPRESS_OK;
  });
}

commpress_status commpress_options_set_chunk_bytes(commpress_options* options,
                                                   size_t chunk_bytes) {
  return guarded("commpress_options_set_chunk_bytes", [&] {
    if (options == nullptr) return null_argument("commpress_options_set_chunk_bytes", "options");
    options->options.chunk_bytes = chunk_bytes;
    return COMMPRESS_OK;
  });
}

commpress_status commpress_options_set_pretend_ranks_per_node(commpress_options* options,
                                                              int ranks) {
  return guarded("commpress_options_set_pretend_ranks_per_node", [&] {
    if (options == nullptr)
      return null_argument("commpress_options_set_pretend_ranks_per_node", "options");
    if (ranks < 0)
      return fail(ErrorCode::invalid_argument,
                  "commpress_options_set_pretend_ranks_per_node: ranks must be >= 0, got " +
                      std::to_string(ranks));
    options->options.pretend_ranks_per_node = ranks;
    return COMMPRESS_OK;
  });
}

}  // extern "C"
