#include "linalg/gemm/summa_operands.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <string>

namespace commpress::linalg::detail {

namespace {

struct Range {
  int64_t lo = 0, hi = 0;  // [lo, hi)
  int64_t size() const { return std::max<int64_t>(0, hi - lo); }
};

Range part(const BlockSplit& s, int i) {
  return {s.offset(i), s.offset(i) + s.size(i)};
}
Range meet(Range a, Range b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

}  // namespace

Status check_operand_size(Trans t, int64_t op_rows, int64_t op_cols, const Grid& g) {
  if (t == Trans::N) return {};
  const BlockSplit src_rows{op_cols, g.rows()}, src_cols{op_rows, g.cols()};
  const BlockSplit dst_rows{op_rows, g.rows()}, dst_cols{op_cols, g.cols()};
  if (src_rows.block() * src_cols.block() > INT_MAX ||
      dst_rows.block() * dst_cols.block() > INT_MAX)
    return {ErrorCode::unsupported, "summa: a transposed " + std::to_string(op_cols) + "x" +
                                        std::to_string(op_rows) +
                                        " operand has blocks beyond 2^31 elements"};
  return {};
}

template <class T>
Status operand_block(Trans t, const DistMatrix<T>& x, int64_t op_rows, int64_t op_cols,
                     const Grid& g, OperandBlock<T>& out, SummaTally& tally) {
  if (t == Trans::N) {
    out.data = x.data;
    out.ld = x.ld;
    return {};
  }
  const int pr = g.rows(), pc = g.cols();
  // Stored X is R x C with R = op_cols, C = op_rows.
  const BlockSplit src_rows{op_cols, pr}, src_cols{op_rows, pc};
  const BlockSplit dst_rows{op_rows, pr}, dst_cols{op_cols, pc};
  COMMPRESS_RETURN_IF_ERROR(check_operand_size(t, op_rows, op_cols, g));
  const Range my_r = part(src_rows, g.row()), my_c = part(src_cols, g.col());
  const Range want_r = part(dst_rows, g.row()), want_c = part(dst_cols, g.col());
  const int p = pr * pc;
  const size_t np = static_cast<size_t>(p);
  std::vector<int> send_n(np), send_at(np), recv_n(np), recv_at(np);
  int64_t sent = 0, received = 0;
  for (int i = 0; i < pr; ++i)
    for (int j = 0; j < pc; ++j) {
      const int r = i * pc + j;
      // To (i, j): stored rows it wants as columns, stored columns it wants as rows.
      const Range rr = meet(my_r, part(dst_cols, j)), cc = meet(my_c, part(dst_rows, i));
      send_at[size_t(r)] = int(sent);
      send_n[size_t(r)] = int(rr.size() * cc.size());
      sent += send_n[size_t(r)];
      // From (i, j): what it holds of this rank's wanted block.
      const Range fr = meet(part(src_rows, i), want_c), fc = meet(part(src_cols, j), want_r);
      recv_at[size_t(r)] = int(received);
      recv_n[size_t(r)] = int(fr.size() * fc.size());
      received += recv_n[size_t(r)];
    }
  std::vector<T> send(size_t(std::max<int64_t>(sent, 1))),
      recv(size_t(std::max<int64_t>(received, 1)));
  // Pack each piece already transposed, so the receiver copies columns of op(X).
  for (int i = 0; i < pr; ++i)
    for (int j = 0; j < pc; ++j) {
      const Range rr = meet(my_r, part(dst_cols, j)), cc = meet(my_c, part(dst_rows, i));
      T* o = send.data() + send_at[size_t(i * pc + j)];
      for (int64_t a = rr.lo; a < rr.hi; ++a)
        for (int64_t b = cc.lo; b < cc.hi; ++b) *o++ = x.data[(a - my_r.lo) + (b - my_c.lo) * x.ld];
    }
  const MPI_Datatype type = mpi_type<T>();
  if (MPI_Alltoallv(send.data(), send_n.data(), send_at.data(), type, recv.data(), recv_n.data(),
                    recv_at.data(), type, g.layer_comm()) != MPI_SUCCESS)
    return {ErrorCode::internal, "summa: MPI_Alltoallv failed while transposing an operand"};
  out.ld = std::max<int64_t>(1, want_r.size());
  out.storage.assign(size_t(out.ld * std::max<int64_t>(1, want_c.size())), T(0));
  for (int i = 0; i < pr; ++i)
    for (int j = 0; j < pc; ++j) {
      const Range fr = meet(part(src_rows, i), want_c), fc = meet(part(src_cols, j), want_r);
      const T* in = recv.data() + recv_at[size_t(i * pc + j)];
      for (int64_t col = fr.lo; col < fr.hi; ++col)
        for (int64_t row = fc.lo; row < fc.hi; ++row)
          out.storage[size_t((row - want_r.lo) + (col - want_c.lo) * out.ld)] = *in++;
    }
  out.data = out.storage.data();
  const uint64_t own = uint64_t(send_n[size_t(g.row() * pc + g.col())]) * sizeof(T);
  tally.traffic.add(uint64_t(sent) * sizeof(T) - own, uint64_t(sent) * sizeof(T) - own);
  tally.memory_bytes += (send.size() + recv.size() + out.storage.size()) * sizeof(T);
  return {};
}

template Status operand_block<float>(Trans, const DistMatrix<float>&, int64_t, int64_t, const Grid&,
                                     OperandBlock<float>&, SummaTally&);
template Status operand_block<double>(Trans, const DistMatrix<double>&, int64_t, int64_t,
                                      const Grid&, OperandBlock<double>&, SummaTally&);

}  // namespace commpress::linalg::detail
