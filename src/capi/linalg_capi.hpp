// The opaque handles of the distributed multiply's C API.
#pragma once

#include "commpress.h"
#include "commpress/linalg.hpp"

struct commpress_grid {
  commpress::linalg::Grid grid;
};

struct commpress_gemm_options {
  commpress::linalg::GemmOptions options;
};
