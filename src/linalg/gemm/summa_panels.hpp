// Where SUMMA's panels fall: the k dimension cut into panels that never straddle an owner
// boundary of op(A)'s columns (split over the grid's columns) or of op(B)'s rows (split over
// the grid's rows), so each panel piece has exactly one owner per grid row and per grid column.
#pragma once

#include <cstdint>
#include <vector>

namespace commpress::linalg::detail {

struct Panel {
  int64_t k0 = 0;       // first index of k
  int64_t width = 0;    // > 0
  int a_owner_col = 0;  // grid column holding op(A)(:, k0:k0+width)
  int b_owner_row = 0;  // grid row holding op(B)(k0:k0+width, :)
  int layer = 0;        // 2.5D layer that multiplies this panel (round robin)
};

// Every panel of k in order, at most width (> 0: the plan's panel) wide.
std::vector<Panel> make_panels(int64_t k, int grid_rows, int grid_cols, int layers, int64_t width);

}  // namespace commpress::linalg::detail
