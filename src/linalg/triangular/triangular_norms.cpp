#include "linalg/triangular/triangular_norms.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace commpress::linalg::detail {

template <class T>
double max_abs_line_sum(const BlockCyclic<T>& a, const LineGrid& g, bool by_rows, Part part) {
  const int64_t mp = a.rows.local_size(g.row), nq = a.cols.local_size(g.col);
  std::vector<double> sums(size_t(std::max<int64_t>(1, by_rows ? mp : nq)), 0.0);
  // Local rows ascend in global index, so a column's part is one range of them.
  std::vector<int64_t> row_of(static_cast<size_t>(mp));
  for (int64_t li = 0; li < mp; ++li) row_of[size_t(li)] = a.rows.global_of(li, g.row);
  for (int64_t lj = 0; lj < nq; ++lj) {
    const int64_t j = a.cols.global_of(lj, g.col);
    const auto at_j = std::lower_bound(row_of.begin(), row_of.end(), j) - row_of.begin();
    const auto past_j = std::upper_bound(row_of.begin(), row_of.end(), j) - row_of.begin();
    const int64_t from = part == Part::Lower ? at_j : 0;
    const int64_t to = part == Part::Upper ? past_j : mp;
    const T* col = a.at(0, lj);
    if (by_rows) {
      for (int64_t li = from; li < to; ++li) sums[size_t(li)] += std::fabs(double(col[li]));
    } else {
      double s = 0;
      for (int64_t li = from; li < to; ++li) s += std::fabs(double(col[li]));
      sums[size_t(lj)] += s;
    }
  }
  // Lines of this rank's rows are completed along its process row, columns along its column.
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_DOUBLE, MPI_SUM,
                by_rows ? g.row_comm : g.col_comm);
  double most = *std::max_element(sums.begin(), sums.end());
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, by_rows ? g.col_comm : g.row_comm);
  return most;
}

template double max_abs_line_sum<float>(const BlockCyclic<float>&, const LineGrid&, bool, Part);
template double max_abs_line_sum<double>(const BlockCyclic<double>&, const LineGrid&, bool, Part);

}  // namespace commpress::linalg::detail
