// The options behind commpress_p?trsm / commpress_p?potrf (which have no options argument):
// the codec their panels and solved blocks travel through and, for a lossy codec, the absolute
// bound every travelling element keeps. Also the bound the last call derived on its result.
#pragma once

#include <cstdint>
#include <string>

#include "commpress/status.hpp"

namespace commpress::linalg::detail {

struct TriangularOptions {
  std::string codec = "none";
  double abs_bound = 0;  // > 0 exactly when the codec is lossy
  // Layers: 1 = the 2D algorithms, c > 1 = the 2.5D ones on c layers, 0 = chosen by the
  // model (plan_trsm, plan_cholesky).
  int layers = 1;
  // Bytes per rank the model's choice of layers may add (0: no cap), from
  // COMMPRESS_TRIANGULAR_MEMORY_CAP.
  double memory_cap = 0;
  // The trailing updates' inner dimension, in elements (TriangularWire::update_width), from
  // COMMPRESS_TRIANGULAR_UPDATE_WIDTH.
  int64_t update_width = 256;
};

// Those set by set_triangular_options, else COMMPRESS_TRIANGULAR_CODEC and
// COMMPRESS_TRIANGULAR_ABS_BOUND (read once); an invalid environment value is the error.
Result<TriangularOptions> triangular_options();

// Null codec means "none". A lossy codec needs abs_bound > 0; "auto" and relative bounds are
// refused (the routines derive their result's bound from an absolute one on what travels: a
// relative one would need the value range of factors not computed yet). Options unchanged on
// error.
Status set_triangular_options(const char* codec, double abs_bound);

// 0 (the model chooses), 1 or more; negative is refused. Options unchanged on error.
Status set_triangular_layers(int layers);

// What the last call on this thread derived (0: exact transfers; -1: none could be derived,
// the factorization having stopped).
void record_result_bound(double bound);
double last_result_bound();

// What the last call on this thread moved between processes, summed over its grid (see
// TriangularWire::bytes); 0 before any call.
void record_moved_bytes(int64_t bytes);
int64_t last_moved_bytes();

}  // namespace commpress::linalg::detail
