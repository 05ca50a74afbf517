// How the reductions split a vector into one block per rank.
#pragma once

#include <cstddef>
#include <vector>

namespace commpress::comm::detail {

// The block split of an n-element vector over p ranks: block b is [off[b], off[b+1]).
struct BlockLayout {
  std::vector<size_t> off;

  // Sizes differ by at most one, larger blocks first (MPI's convention for uneven counts).
  static BlockLayout even(size_t n, int p) {
    BlockLayout l;
    l.off.assign(size_t(p) + 1, 0);
    for (int b = 0; b < p; ++b) l.off[b + 1] = l.off[b] + n / p + (size_t(b) < n % p ? 1 : 0);
    return l;
  }
  static BlockLayout uniform(size_t m, int p) {
    BlockLayout l;
    for (int b = 0; b <= p; ++b) l.off.push_back(m * size_t(b));
    return l;
  }
  static BlockLayout of_sizes(const std::vector<size_t>& sizes) {
    BlockLayout l{{0}};
    for (size_t s : sizes) l.off.push_back(l.off.back() + s);
    return l;
  }
  int blocks() const { return int(off.size()) - 1; }
  size_t begin(int b) const { return off[b]; }
  size_t size(int b) const { return off[b + 1] - off[b]; }
  size_t total() const { return off.back(); }
};

}  // namespace commpress::comm::detail
