// GemmAlgorithm::Summa, and the driver it shares with Summa25D (a 2-D grid is one layer).
#include <climits>
#include <string>
#include <vector>

#include "commpress/gemm_model.hpp"
#include "linalg/gemm/summa_driver.hpp"
#include "linalg/gemm/summa_layers.hpp"
#include "linalg/gemm/summa_loop.hpp"
#include "linalg/gemm/summa_operands.hpp"

namespace commpress::linalg::detail {

namespace {

Status refuse_beyond_int(const char* what, uint64_t bytes) {
  if (bytes <= uint64_t(INT_MAX)) return {};
  return {ErrorCode::unsupported, std::string("summa: ") + what + " of up to " +
                                      std::to_string(bytes) +
                                      " bytes exceeds MPI's int count; use narrower panels or "
                                      "a larger grid"};
}

// Limits that depend only on global sizes, so every rank (every layer) refuses alike before
// the first transfer.
template <class T>
Status check_sizes(const GemmCall<T>& call, std::span<const Panel> panels, int64_t widest,
                   const Wire& a_wire, const Wire& b_wire) {
  const Grid& g = *call.grid;
  const int64_t mb = BlockSplit{call.m, g.rows()}.block(),
                nb = BlockSplit{call.n, g.cols()}.block();
  COMMPRESS_RETURN_IF_ERROR(check_operand_size(call.transa, call.m, call.k, g));
  COMMPRESS_RETURN_IF_ERROR(check_operand_size(call.transb, call.k, call.n, g));
  COMMPRESS_RETURN_IF_ERROR(
      refuse_beyond_int("a panel of op(A)", a_wire.frame_capacity(size_t(mb * widest))));
  COMMPRESS_RETURN_IF_ERROR(
      refuse_beyond_int("a panel of op(B)", b_wire.frame_capacity(size_t(widest * nb))));
  if (g.layers() == 1) return {};
  COMMPRESS_RETURN_IF_ERROR(refuse_beyond_int("a block of C", uint64_t(mb * nb) * sizeof(T)));
  return refuse_beyond_int("a layer's share of the pieces",
                           max_layer_shipment(panels, g.layers(), mb, nb, a_wire, b_wire));
}

// A panel piece is compressed only where it travels: along a grid row or column of more than
// one rank, or to other layers.
bool travels(int ranks_along, int layers) { return ranks_along > 1 || layers > 1; }

}  // namespace

// A's pieces travel along grid rows, B's along grid columns; the panel width is the caller's,
// or the model's default (the one its prediction assumed).
void plan_summa(GemmPlan& plan) {
  plan.compress_a = travels(plan.grid_cols, plan.layers);
  plan.compress_b = travels(plan.grid_rows, plan.layers);
  if (plan.panel <= 0)
    plan.panel = model::default_summa_panel(
        plan.k, model::GemmGrid{plan.grid_rows, plan.grid_cols, plan.layers});
}

template <class T>
Status summa_on_grid(const GemmCall<T>& call, GemmReport& report) {
  const Grid& g = *call.grid;
  const int layers = g.layers();
  const BlockSplit k_by_col{call.k, g.cols()}, k_by_row{call.k, g.rows()};
  const int64_t rows_here = BlockSplit{call.m, g.rows()}.size(g.row());
  const int64_t cols_here = BlockSplit{call.n, g.cols()}.size(g.col());
  const std::vector<Panel> panels =
      make_panels(call.k, g.rows(), g.cols(), layers, call.plan->panel);
  int64_t widest = 0;
  for (const Panel& p : panels) widest = std::max(widest, p.width);

  auto a_stream = PanelStream<T>::create(g.row_comm(), call.codec_a, call.block_bound_a,
                                         call.plan->overlap);
  if (!a_stream.ok()) return a_stream.status();
  auto b_stream = PanelStream<T>::create(g.col_comm(), call.codec_b, call.block_bound_b,
                                         call.plan->overlap);
  if (!b_stream.ok()) return b_stream.status();
  COMMPRESS_RETURN_IF_ERROR(
      check_sizes(call, panels, widest, a_stream->wire(), b_stream->wire()));

  SummaTally tally;
  OperandBlock<T> a_op, b_op;
  if (g.layer() == 0) {
    // Past check_sizes only MPI itself can fail here (and its default handler aborts).
    COMMPRESS_RETURN_IF_ERROR(
        operand_block(call.transa, *call.a, call.m, call.k, g, a_op, tally));
    COMMPRESS_RETURN_IF_ERROR(
        operand_block(call.transb, *call.b, call.k, call.n, g, b_op, tally));
  }
  const PanelEncoder encode_a = [&](const Panel& p, const Wire& wire, Buffer& out) {
    const int64_t at = p.k0 - k_by_col.offset(p.a_owner_col);
    return encode_block_frame(wire, a_op.data + at * a_op.ld, a_op.ld, rows_here, p.width, out);
  };
  const PanelEncoder encode_b = [&](const Panel& p, const Wire& wire, Buffer& out) {
    const int64_t at = p.k0 - k_by_row.offset(p.b_owner_row);
    return encode_block_frame(wire, b_op.data + at, b_op.ld, p.width, cols_here, out);
  };

  // A failure from here on is remembered, not returned, until every transfer is done.
  Status failed;
  auto note = [&failed](const Status& st) {
    if (failed.ok() && !st.ok()) failed = st;
  };
  HeldPieces held;
  if (layers > 1)
    note(ship_layer_pieces(g, panels, rows_here, cols_here, sizeof(T), encode_a, a_stream->wire(),
                           encode_b, b_stream->wire(), held, tally));

  std::vector<Panel> mine;
  for (const Panel& p : panels)
    if (p.layer == g.layer()) mine.push_back(p);
  PieceSource a_source = held.source(0), b_source = held.source(1);
  if (g.layer() == 0) {
    a_source = [&](size_t i, const Wire& wire, Buffer& out) {
      return encode_a(mine[i], wire, out);
    };
    b_source = [&](size_t i, const Wire& wire, Buffer& out) {
      return encode_b(mine[i], wire, out);
    };
  }

  // Layer 0 accumulates into C itself (beta applied there once); other layers start from zero.
  std::vector<T> partial;
  LoopTarget<T> target{call.c->data, call.c->ld, rows_here, cols_here, call.beta};
  if (g.layer() != 0) {
    partial.assign(size_t(std::max<int64_t>(1, rows_here * cols_here)), T(0));
    target = {partial.data(), std::max<int64_t>(1, rows_here), rows_here, cols_here, T(0)};
  }
  note(summa_panel_loop<T>(call, mine, *a_stream, a_source, *b_stream, b_source, target));
  if (layers > 1) note(reduce_over_layers(g, target.c, target.ldc, rows_here, cols_here, tally));

  for (const PanelStream<T>* s : {&*a_stream, &*b_stream}) {
    tally.traffic.add(s->traffic().raw_bytes, s->traffic().bytes_sent);
    tally.memory_bytes += s->buffer_bytes();
  }
  report.raw_bytes = tally.traffic.raw_bytes;
  report.bytes_sent = tally.traffic.bytes_sent;
  report.memory_bytes = tally.memory_bytes + partial.capacity() * sizeof(T);
  return failed;
}

template <class T>
Status run_summa(const GemmCall<T>& call, GemmReport& report) {
  return summa_on_grid(call, report);
}

template Status summa_on_grid<float>(const GemmCall<float>&, GemmReport&);
template Status summa_on_grid<double>(const GemmCall<double>&, GemmReport&);
template Status run_summa<float>(const GemmCall<float>&, GemmReport&);
template Status run_summa<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
