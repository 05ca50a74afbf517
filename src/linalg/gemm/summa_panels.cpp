#include "linalg/gemm/summa_panels.hpp"

#include <algorithm>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

std::vector<Panel> make_panels(int64_t k, int grid_rows, int grid_cols, int layers, int64_t width) {
  std::vector<Panel> out;
  if (k <= 0 || width <= 0) return out;
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
