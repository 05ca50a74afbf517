// The public gemm: check the arguments on every rank together, plan (or take the caller's plan),
// resolve the plan's REL bounds against the data, run the plan's algorithm, and report the
// bound its compression implies on C. Execution decides nothing the plan does not say.
#include <bit>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "comm/session/agreement.hpp"
#include "comm/session/codec_threads.hpp"
#include "commpress/gemm_model.hpp"
#include "commpress/linalg.hpp"
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

std::string shape_of(int rows, int cols, int layers) {
  return std::to_string(rows) + "x" + std::to_string(cols) + "x" + std::to_string(layers);
}

// The algorithm's grid rule (its table row).
Status check_algorithm(GemmAlgorithm alg, const Grid& g) {
  if (alg == GemmAlgorithm::Auto) return {};
  const model::GemmAlgorithmInfo* info = model::gemm_algorithm_info(alg);
  if (info == nullptr)
    return {ErrorCode::invalid_argument, "unknown gemm algorithm " + std::to_string(int(alg))};
  model::GemmScenario shape;
  shape.grid = {g.rows(), g.cols(), g.layers()};
  if (model::gemm_runs(alg, shape)) return {};
  return {ErrorCode::invalid_argument,
          std::string(info->name) + " needs " + model::gemm_grid_needs(info->grid) + ", got " +
              shape_of(g.rows(), g.cols(), g.layers())};
}

template <class T>
Status check_shapes(const GemmCall<T>& call) {
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
  return check_block("C", *call.c, g);
}

// A codec the call can use: registered, takes T, and bounded when lossy.
template <class T>
Status check_codec(const std::string& name, bool bounded) {
  if (name == "none" || name == "auto" || name.empty()) return {};
  auto codec = codec::get_codec(name);
  if (!codec.ok()) return codec.status();
  if (!(*codec)->supports(codec::dtype_of<T>()))
    return {ErrorCode::unsupported, "codec " + name + " does not take this dtype"};
  if ((*codec)->lossy() && !bounded)
    return {ErrorCode::invalid_argument, "lossy codec " + name + " needs an ABS or REL bound"};
  return {};
}

template <class T>
Status check_local(const GemmCall<T>& call, const GemmOptions& o) {
  COMMPRESS_RETURN_IF_ERROR(check_shapes(call));
  COMMPRESS_RETURN_IF_ERROR(check_algorithm(o.algorithm, *call.grid));
  return check_codec<T>(o.codec, o.bound.mode != codec::BoundMode::lossless);
}

// A caller's plan fits the call: its multiply, its grid, an algorithm that runs there with its
// codec, and the fields the algorithm's planning hook would give it (a SUMMA panel > 0 may be
// the caller's own).
template <class T>
Status check_plan(const GemmCall<T>& call, const GemmPlan& plan) {
  const Grid& g = *call.grid;
  if (plan.m != call.m || plan.n != call.n || plan.k != call.k ||
      plan.dtype != codec::dtype_of<T>())
    return {ErrorCode::invalid_argument,
            "the plan is for a " + std::to_string(plan.m) + "x" + std::to_string(plan.n) + "x" +
                std::to_string(plan.k) + " " + codec::dtype_name(plan.dtype) + " multiply, not " +
                std::to_string(call.m) + "x" + std::to_string(call.n) + "x" +
                std::to_string(call.k) + " " + codec::dtype_name(codec::dtype_of<T>())};
  if (plan.grid_rows != g.rows() || plan.grid_cols != g.cols() || plan.layers != g.layers())
    return {ErrorCode::invalid_argument,
            "the plan is for a " + shape_of(plan.grid_rows, plan.grid_cols, plan.layers) +
                " grid, not " + shape_of(g.rows(), g.cols(), g.layers())};
  if (plan.algorithm == GemmAlgorithm::Auto)
    return {ErrorCode::invalid_argument, "a plan names the algorithm that runs, not auto"};
  COMMPRESS_RETURN_IF_ERROR(check_algorithm(plan.algorithm, g));
  if (plan.codec == "auto" || plan.codec.empty())
    return {ErrorCode::invalid_argument, "the plan's codec must be \"none\" or a registry name"};
  const bool bounded = (!plan.compress_a || plan.bound_a.mode != codec::BoundMode::lossless) &&
                       (!plan.compress_b || plan.bound_b.mode != codec::BoundMode::lossless);
  COMMPRESS_RETURN_IF_ERROR(check_codec<T>(plan.codec, bounded));
  if (plan.codec != "none" &&
      model::gemm_algorithm_info(plan.algorithm)->codec != model::GemmCodecUse::compressed)
    return {ErrorCode::unsupported, std::string(gemm_algorithm_name(plan.algorithm)) +
                                        " moves uncompressed blocks; codec " + plan.codec +
                                        " is not available with it"};
  GemmPlan expect = plan;
  COMMPRESS_RETURN_IF_ERROR(detail::plan_details(expect));
  if (expect.compress_a != plan.compress_a || expect.compress_b != plan.compress_b ||
      expect.panel != plan.panel || plan.ranks_per_node < 1)
    return {ErrorCode::invalid_argument,
            std::string("the plan's operands, panel or domain are not what ") +
                gemm_algorithm_name(plan.algorithm) + " runs with (plan it with plan_gemm)"};
  return {};
}

// The call's own fields, which every rank must share, then the given ones.
template <class T>
std::vector<comm::detail::Field> call_fields(const GemmCall<T>& call,
                                             std::initializer_list<comm::detail::Field> more) {
  std::vector<comm::detail::Field> fields{{"m", call.m},
                                          {"n", call.n},
                                          {"k", call.k},
                                          {"transa", int64_t(call.transa)},
                                          {"transb", int64_t(call.transb)},
                                          {"dtype", int64_t(codec::dtype_of<T>())},
                                          {"alpha", bits_of(double(call.alpha))},
                                          {"beta", bits_of(double(call.beta))}};
  fields.insert(fields.end(), more);
  return fields;
}

template <class T>
Status agree_arguments(const GemmCall<T>& call, const GemmOptions& o) {
  return comm::detail::agree(call.grid->comm(),
                             call_fields(call, {{"algorithm", int64_t(o.algorithm)},
                                                {"codec", comm::detail::fingerprint(o.codec)},
                                                {"bound mode", int64_t(o.bound.mode)},
                                                {"bound value", bits_of(o.bound.value)},
                                                {"overlap", int64_t(o.overlap)},
                                                {"panel", o.panel}}),
                             check_local(call, o));
}

// Every field of a caller's plan, so that no rank runs another plan than its peers.
template <class T>
Status agree_plan(const GemmCall<T>& call, const GemmPlan& p) {
  return comm::detail::agree(
      call.grid->comm(),
      call_fields(call, {{"algorithm", int64_t(p.algorithm)},
                         {"codec", comm::detail::fingerprint(p.codec)},
                         {"compress A", int64_t(p.compress_a)},
                         {"compress B", int64_t(p.compress_b)},
                         {"bound A mode", int64_t(p.bound_a.mode)},
                         {"bound A value", bits_of(p.bound_a.value)},
                         {"bound B mode", int64_t(p.bound_b.mode)},
                         {"bound B value", bits_of(p.bound_b.value)},
                         {"overlap", int64_t(p.overlap)},
                         {"panel", p.panel},
                         {"ranks per node", int64_t(p.ranks_per_node)},
                         {"predicted seconds", bits_of(p.predicted_seconds)},
                         {"memory", int64_t(p.memory_bytes)}}),
      check_plan(call, p));
}

template <class T>
GemmCall<T> make_call(Trans transa, Trans transb, T alpha, const DistMatrix<T>& a,
                      const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid) {
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
  return call;
}

// Runs an agreed plan that fits the call.
template <class T>
Result<GemmReport> execute(GemmCall<T>& call, const GemmPlan& plan) {
  const Grid& grid = *call.grid;
  call.plan = &plan;
  call.codec_a = plan.compress_a ? plan.codec : "none";
  call.codec_b = plan.compress_b ? plan.codec : "none";
  // The codecs' OpenMP teams (and the bounds' range passes) get the same share of the node's
  // cores as the local products: a full team per rank on an oversubscribed node spends its
  // time spinning, not compressing (docs/measured-choices.md).
  const comm::detail::CodecThreads codec_threads(detail::set_blas_threads_for(grid.comm()));

  auto bounds = detail::resolve_input_bounds(call);
  if (!bounds.ok()) return bounds.status();
  call.block_bound_a = bounds->a;
  call.block_bound_b = bounds->b;

  GemmReport report;
  report.algorithm = plan.algorithm;
  report.grid_rows = grid.rows();
  report.grid_cols = grid.cols();
  report.layers = grid.layers();
  // An input that never goes through the codec (raw algorithms, a panel with nowhere to
  // travel) is exact: it adds nothing to the bound, and with neither compressed the report
  // names no codec.
  report.codec = plan.compress_a || plan.compress_b ? plan.codec : "none";
  report.predicted_seconds = plan.predicted_seconds;
  Status st = comm::detail::agree_outcome(grid.comm(), detail::run_planned(call, report));
  if (!st.ok()) return st;
  if (report.codec == "none") return report;
  auto bound_c = detail::bound_on_c(call);
  if (!bound_c.ok()) return bound_c.status();
  report.guaranteed_abs_bound = *bound_c;
  return report;
}

}  // namespace

template <class T>
Result<GemmReport> gemm(Trans transa, Trans transb, T alpha, const DistMatrix<T>& a,
                        const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid,
                        const GemmOptions& opts) {
  GemmCall<T> call = make_call(transa, transb, alpha, a, b, beta, c, grid);
  COMMPRESS_RETURN_IF_ERROR(agree_arguments(call, opts));
  auto plan = plan_gemm(transa, transb, call.m, call.n, call.k, codec::dtype_of<T>(), grid, opts);
  if (!plan.ok()) return plan.status();
  // Planned from agreed arguments alone: every rank holds the same plan.
  return execute(call, *plan);
}

template <class T>
Result<GemmReport> gemm(const GemmPlan& plan, T alpha, const DistMatrix<T>& a,
                        const DistMatrix<T>& b, T beta, DistMatrix<T>& c, const Grid& grid) {
  GemmCall<T> call = make_call(plan.transa, plan.transb, alpha, a, b, beta, c, grid);
  COMMPRESS_RETURN_IF_ERROR(agree_plan(call, plan));
  return execute(call, plan);
}

template Result<GemmReport> gemm<float>(Trans, Trans, float, const DistMatrix<float>&,
                                        const DistMatrix<float>&, float, DistMatrix<float>&,
                                        const Grid&, const GemmOptions&);
template Result<GemmReport> gemm<double>(Trans, Trans, double, const DistMatrix<double>&,
                                         const DistMatrix<double>&, double, DistMatrix<double>&,
                                         const Grid&, const GemmOptions&);
template Result<GemmReport> gemm<float>(const GemmPlan&, float, const DistMatrix<float>&,
                                        const DistMatrix<float>&, float, DistMatrix<float>&,
                                        const Grid&);
template Result<GemmReport> gemm<double>(const GemmPlan&, double, const DistMatrix<double>&,
                                         const DistMatrix<double>&, double, DistMatrix<double>&,
                                         const Grid&);

}  // namespace commpress::linalg
