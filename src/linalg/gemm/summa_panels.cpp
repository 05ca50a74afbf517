#include "linalg/gemm/summa_panels.hpp"

#include <algorithm>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

int64_t default_panel_width(int64_t k, int grid_rows, int grid_cols, int layers) {
  constexpr int64_t kWidest = 256;
  const int64_t parts = int64_t(std::max(grid_rows, grid_cols)) * std::max(layers, 1);
  return std::clamp<int64_t>((k + parts - 1) / parts, 1, kWidest);
}

std::vector<Panel> make_panels(int64_t k, int grid_rows, int grid_cols, int layers, int64_t width) {
  std::vector<Panel> out;
  if (k <= 0) return out;
  if (width <= 0) width = default_panel_width(k, grid_rows, grid_cols, layers);
  const BlockSplit by_col{k, grid_cols}, by_row{k, grid_rows};
  const int64_t bc = by_col.block(), br = by_row.block();
  int64_t k0 = 0;
  while (k0 < k) {
    // The next owner boundary of either split bounds this segment.
    const int64_t end = std::min({k, (k0 / bc + 1) * bc, (k0 / br + 1) * br});
    for (int64_t s = k0; s < end; s += width) {
      Panel p;
      p.k0 = s;
      p.width = std::min(width, end - s);
      p.a_owner_col = int(s / bc);
      p.b_owner_row = int(s / br);
      p.layer = int(out.size() % size_t(std::max(layers, 1)));
      out.push_back(p);
    }
    k0 = end;
  }
  return out;
}

}  // namespace commpress::linalg::detail
