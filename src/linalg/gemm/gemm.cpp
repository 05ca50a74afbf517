// The public gemm: check the arguments on every rank together, resolve Auto and the codec's
// bounds, run the chosen algorithm, and report the bound its compression implies on C.
#include <bit>
#include <cstring>
#include <string>

#include "comm/detail/agreement.hpp"
#include "comm/detail/codec_threads.hpp"
#include "commpress/linalg.hpp"
#include "linalg/gemm/compressed_operands.hpp"
#include "linalg/gemm/gemm_bounds.hpp"
#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg {

namespace {

using detail::GemmCall;

int64_t bits_of(double v) { return std::bit_cast<int64_t>(v); }

template <class T>
Status check_block(const char* name, const DistMatrix<T>& m, const Grid& g) {
  if (m.rows < 0 || m.cols < 0)
    return {ErrorCode::invalid_argument, std::string(name) + ": negative dimensions"};
  const int64_t lr = m.local_rows(g), lc = m.local_cols(g);
  if (m.ld < std::max<int64_t>(1, lr))
    return {ErrorCode::invalid_argument, std::string(name) + ": leading dimension " +
                                             std::to_string(m.ld) + " is below the " +
                                             std::to_string(lr) + " local rows"};
  if (lr > 0 && lc > 0 && m.data == nullptr)
    return {ErrorCode::invalid_argument, std::string(name) + ": null data for a " +
                                             std::to_string(lr) + "x" + std::to_string(lc) +
                                             " local block"};
  return {};
}

Status check_algorithm(GemmAlgorithm alg, const Grid& g) {
  const bool square = g.rows() == g.cols();
  switch (alg) {
    case GemmAlgorithm::Cannon:
      if (!square || g.layers() != 1)
        return {ErrorCode::invalid_argument,
                "cannon needs a square 2-D grid, got " + std::to_string(g.rows()) + "x" +
                    std::to_string(g.cols()) + "x" + std::to_string(g.layers())};
      return {};
    case GemmAlgorithm::Summa:
    case GemmAlgorithm::Srumma:
    case GemmAlgorithm::ScaLapack:
      if (g.layers() != 1)
        return {ErrorCode::invalid_argument, std::string(gemm_algorithm_name(alg)) +
                                                 " runs on 2-D grids (this one has " +
                                                 std::to_string(g.layers()) + " layers)"};
      return {};
    case GemmAlgorithm::Cannon25D:
      if (!square)
        return {ErrorCode::invalid_argument, "cannon25d needs square layers, got " +
                                                 std::to_string(g.rows()) + "x" +
                                                 std::to_string(g.cols())};
      return {};
    case GemmAlgorithm::Summa25D:
    case GemmAlgorithm::Auto:
      return {};
  }
  return {ErrorCode::invalid_argument, "unknown gemm algorithm"};
}

template <class T>
Status check_local(const GemmCall<T>& call) {
  const Grid& g = *call.grid;
  const DistMatrix<T>&a = *call.a, &b = *call.b;
  const int64_t ak = call.transa == Trans::N ? a.cols : a.rows;
  const int64_t bk = call.transb == Trans::N ? b.rows : b.cols;
  if (ak != bk)
    return {ErrorCode::invalid_argument, "inner dimensions differ: op(A) has " +
                                             std::to_string(ak) + " columns, op(B) " +
                                             std::to_string(bk) + " rows"};
  if ((call.transa == Trans::N ? a.rows : a.cols) != call.m ||
      (call.transb == Trans::N ? b.cols : b.rows) != call.n)
    return {ErrorCode::invalid_argument, "C is " + std::to_string(call.m) + "x" +
                                             std::to_string(call.n) +
                                             ", not op(A) rows x op(B) columns"};
  COMMPRESS_RETURN_IF_ERROR(check_block("A", a, g));
  COMMPRESS_RETURN_IF_ERROR(check_block("B", b, g));
  COMMPRESS_RETURN_IF_ERROR(check_block("C", *call.c, g));
  COMMPRESS_RETURN_IF_ERROR(check_algorithm(call.opts->algorithm, g));
  const std::string& name = call.opts->codec;
  if (name == "none" || name == "auto" || name.empty()) return {};
  auto codec = codec::get_codec(name);
  if (!codec.ok()) return codec.status();
  if (!(*codec)->supports(codec::dtype_of<T>()))
    return {ErrorCode::unsupported, "codec " + name + " does not take this dtype"};
  if ((*codec)->lossy() && call.opts->bound.mode == codec::BoundMode::lossless)
    return {ErrorCode::invalid_argument, "lossy codec " + name + " needs an ABS or REL bound"};
  return {};
}

template <class T>
Status agree_arguments(const GemmCall<T>& call) {
  const GemmOptions& o = *call.opts;
  return comm::detail::agree(
      call.grid->comm(),
      {{"m", call.m},
       {"n", call.n},
       {"k", call.k},
       {"transa", int64_t(call.transa)},
       {"transb", int64_t(call.transb)},
       {"dtype", int64_t(codec::dtype_of<T>())},
       {"alpha", bits_of(double(call.alpha))},
       {"beta", bits_of(double(call.beta))},
       {"algorithm", int64_t(o.algorithm)},
       {"codec", comm::detail::fingerprint(o.codec)},
       {"bound mode", int64_t(o.bound.mode)},
       {"bound value", bits_of(o.bound.value)},
       {"overlap", int64_t(o.overlap)},
       {"panel", o.panel}},
      check_local(call));
}

template <class T>
Status run(GemmAlgorithm alg, const GemmCall<T>& call, GemmReport& report) {
  switch (alg) {
    case GemmAlgorithm::Cannon: return detail::run_cannon(call, report);
    case GemmAlgorithm::Summa: return detail::run_summa(call, report);
    case GemmAlgorithm::Srumma: return detail::run_srumma(call, report);
    case GemmAlgorithm::Cannon25D: return detail::run_cannon25d(call, report);
    case GemmAlgorithm::Summa25D: return detail::run_summa25d(call, report);
    case GemmAlgorithm::ScaLapack: return detail::run_scalapack(call, report);
    case GemmAlgorithm::Auto: break;
  }
  return {ErrorCode::internal, "gemm: Auto was not resolved"};
}

}  // namespace

template <class T>
Result<GemmReport> gemm(Trans transa, Trans transb, T alpha, const DistMatrix<T>& a,
                        const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid,
                        const GemmOptions& opts) {
  GemmCall<T> call;
  call.transa = transa;
  call.transb = transb;
  call.m = c.rows;
  call.n = c.cols;
  call.k = transa == Trans::N ? a.cols : a.rows;
  call.alpha = alpha;
  call.beta = beta;
  call.a = &a;
  call.b = &b;
  call.c = &c;
  call.grid = &grid;
  call.opts = &opts;
  call.layers = grid.layers();
  COMMPRESS_RETURN_IF_ERROR(agree_arguments(call));

  auto plan = plan_gemm(transa, transb, call.m, call.n, call.k, codec::dtype_of<T>(), grid, opts);
  if (!plan.ok()) return plan.status();
  call.codec = plan->codec;
  // The codecs' OpenMP teams (and the bounds' range passes) get the same share of the node's
  // cores as the local products: a full team per rank on an oversubscribed node spends its
  // time spinning, not compressing (docs/measured-choices.md).
  const comm::detail::CodecThreads codec_threads(detail::set_blas_threads_for(grid.comm()));

  auto bounds = detail::resolve_input_bounds(call);
  if (!bounds.ok()) return bounds.status();
  call.block_bound_a = bounds->a;
  call.block_bound_b = bounds->b;

  GemmReport report;
  report.algorithm = plan->algorithm;
  report.grid_rows = grid.rows();
  report.grid_cols = grid.cols();
  report.layers = grid.layers();
  report.codec = call.codec;
  report.predicted_seconds = plan->predicted_seconds;
  Status st = comm::detail::agree_outcome(grid.comm(), run(plan->algorithm, call, report));
  if (!st.ok()) return st;
  // An input that never went through the codec (raw algorithms, a panel with nowhere to
  // travel) is exact: it adds nothing to the bound, and with neither compressed the report
  // names no codec.
  const detail::CompressedOperands used = detail::compressed_operands(plan->algorithm, grid);
  if (!used.a) call.block_bound_a = ErrorBound::lossless();
  if (!used.b) call.block_bound_b = ErrorBound::lossless();
  if (!used.any()) report.codec = "none";
  if (report.codec == "none") return report;
  auto bound_c = detail::bound_on_c(call);
  if (!bound_c.ok()) return bound_c.status();
  report.guaranteed_abs_bound = *bound_c;
  return report;
}

template Result<GemmReport> gemm<float>(Trans, Trans, float, const DistMatrix<float>&,
                                        const DistMatrix<float>&, float, DistMatrix<float>&,
                                        const Grid&, const GemmOptions&);
template Result<GemmReport> gemm<double>(Trans, Trans, double, const DistMatrix<double>&,
                                         const DistMatrix<double>&, double, DistMatrix<double>&,
                                         const Grid&, const GemmOptions&);

}  // namespace commpress::linalg
