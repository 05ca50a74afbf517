// GemmAlgorithm::Cannon25D (Solomonik & Demmel): c replicas of the q x q layer share Cannon's
// q steps. Layer 0 encodes A and B once; the encoded bytes are broadcast along the fibers, each
// layer runs its contiguous share of the steps, and the partial C blocks are summed onto
// layer 0. Layer 0 accumulates straight into C with beta on its first product, so beta applies
// exactly once and one layer reproduces Cannon exactly.
#include <algorithm>
#include <vector>

#include "comm/session/agreement.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/frame_bcast.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "linalg/gemm/cannon_steps.hpp"
#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

namespace {

// Layer 0's encoded blocks to every layer (their length first, raw ones too). The report counts
// a replica once per receiving layer, without the length word, as it always has; the
// transport's own count (once per broadcast) is set aside.
template <class T>
Status replicate(CannonSteps<T>& steps, const Grid& g) {
  using comm::detail::BcastLength;
  comm::detail::Traffic once;
  const uint64_t raw_a = uint64_t(steps.held_a_shape().elements()) * sizeof(T);
  const uint64_t raw_b = uint64_t(steps.held_b_shape().elements()) * sizeof(T);
  COMMPRESS_RETURN_IF_ERROR(comm::detail::bcast_frame(steps.held_a(), BcastLength::sent,
                                                      steps.a_capacity(), raw_a, 0,
                                                      g.fiber_comm(), once));
  COMMPRESS_RETURN_IF_ERROR(comm::detail::bcast_frame(steps.held_b(), BcastLength::sent,
                                                      steps.b_capacity(), raw_b, 0,
                                                      g.fiber_comm(), once));
  if (g.layer() == 0) {
    const uint64_t others = uint64_t(g.layers() - 1);
    steps.traffic().add(others * raw_a, others * steps.held_a().size());
    steps.traffic().add(others * raw_b, others * steps.held_b().size());
  }
  return {};
}

// Sums every layer's mi x nj partial block onto layer 0's C (column-major, ld). `packed` is
// the contiguous partial on other layers and scratch on layer 0 when C's ld exceeds mi.
template <class T>
Status reduce_layers(const Grid& g, int64_t mi, int64_t nj, T* c, int64_t ld,
                     std::vector<T>& packed) {
  const MPI_Datatype type = comm::detail::mpi_datatype(codec::dtype_of<T>());
  const int count = int(mi * nj);
  // The same block position on every layer of the fiber, so all skip an empty one alike
  // (SMPI's Open MPI reductions divide by the count).
  if (count == 0) return {};
  if (g.layer() != 0) {
    COMMPRESS_MPI(MPI_Reduce(packed.data(), nullptr, count, type, MPI_SUM, 0, g.fiber_comm()));
    return {};
  }
  const bool in_place = ld == mi;
  T* buf = in_place ? c : packed.data();
  if (!in_place)
    for (int64_t j = 0; j < nj; ++j) std::copy_n(c + j * ld, mi, buf + j * mi);
  COMMPRESS_MPI(MPI_Reduce(MPI_IN_PLACE, buf, count, type, MPI_SUM, 0, g.fiber_comm()));
  if (!in_place)
    for (int64_t j = 0; j < nj; ++j) std::copy_n(buf + j * mi, mi, c + j * ld);
  return {};
}

}  // namespace

template <class T>
Status run_cannon25d(const GemmCall<T>& call, GemmReport& report) {
  const Grid& g = *call.grid;
  const int q = g.rows(), layers = g.layers(), l = g.layer();
  if (g.cols() != q)
    return {ErrorCode::invalid_argument, "cannon25d needs square layers"};
  const BlockSplit ms{call.m, q}, ns{call.n, q};
  if (layers > 1)  // the sum travels as one message; same verdict everywhere
    COMMPRESS_RETURN_IF_ERROR(
        check_message_capacity(size_t(ms.block() * ns.block()) * sizeof(T), "C"));
  auto steps = CannonSteps<T>::create(call);
  if (!steps.ok()) return steps.status();
  if (l == 0) steps->encode_local();
  if (layers > 1) COMMPRESS_RETURN_IF_ERROR(replicate(*steps, g));

  const int first = layer_first_step(q, layers, l), last = layer_first_step(q, layers, l + 1);
  const int64_t mi = ms.size(g.row()), nj = ns.size(g.col());
  std::vector<T> partial;  // other layers' share of C, or layer 0's packing scratch
  if (l != 0 || (layers > 1 && call.c->ld != mi)) partial.assign(size_t(mi * nj), T(0));
  Status st;
  if (l == 0) {
    st = steps->run(first, last, call.beta, call.c->data, call.c->ld);
    if (first == last) scale_block(mi, nj, call.beta, call.c->data, call.c->ld);
  } else {
    st = steps->run(first, last, T(0), partial.data(), std::max<int64_t>(1, mi));
  }
  // Every rank of every layer learns of a failure before the reduction, so all skip it
  // together instead of some waiting there for a rank that will never come.
  if (layers > 1) st = comm::detail::agree_outcome(g.comm(), st);
  if (st.ok() && layers > 1) {
    st = reduce_layers(g, mi, nj, call.c->data, call.c->ld, partial);
    if (l != 0) steps->traffic().add(uint64_t(mi * nj) * sizeof(T), uint64_t(mi * nj) * sizeof(T));
  }
  report.raw_bytes = steps->traffic().raw_bytes;
  report.bytes_sent = steps->traffic().bytes_sent;
  report.memory_bytes = steps->memory_bytes() + partial.size() * sizeof(T);
  COMMPRESS_RETURN_IF_ERROR(st);
  return steps->status();
}

template Status run_cannon25d<float>(const GemmCall<float>&, GemmReport&);
template Status run_cannon25d<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
