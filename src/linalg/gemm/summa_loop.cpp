#include "linalg/gemm/summa_loop.hpp"

#include <algorithm>

#include "linalg/gemm/local_blas.hpp"

namespace commpress::linalg::detail {

namespace {

constexpr int64_t kMinChunkColumns = 64;

template <class T>
void post_panel(std::span<const Panel> panels, size_t i, int slot, PanelStream<T>& a,
                const PieceSource& a_source, PanelStream<T>& b, const PieceSource& b_source,
                const LoopTarget<T>& t) {
  const Panel& p = panels[i];
  a.post(slot, i, p.a_owner_col, t.rows, p.width, a_source);
  b.post(slot, i, p.b_owner_row, p.width, t.cols, b_source);
}

}  // namespace

template <class T>
Status summa_panel_loop(const GemmCall<T>& call, std::span<const Panel> panels,
                        PanelStream<T>& a_stream, const PieceSource& a_source,
                        PanelStream<T>& b_stream, const PieceSource& b_source,
                        const LoopTarget<T>& target) {
  if (panels.empty()) {
    // No product on this layer, but beta still applies (k == 0 included).
    if (target.rows > 0 && target.cols > 0)
      scale_block(target.rows, target.cols, target.beta, target.c, target.ldc);
    return {};
  }
  const bool overlap = call.plan->overlap;
  if (overlap) post_panel(panels, 0, 0, a_stream, a_source, b_stream, b_source, target);
  for (size_t i = 0; i < panels.size(); ++i) {
    const int slot = overlap ? int(i % 2) : 0;
    if (!overlap) post_panel(panels, i, slot, a_stream, a_source, b_stream, b_source, target);
    const T* a = a_stream.finish(slot);
    const T* b = b_stream.finish(slot);
    if (overlap && i + 1 < panels.size())
      post_panel(panels, i + 1, 1 - slot, a_stream, a_source, b_stream, b_source, target);
    const int64_t w = panels[i].width;
    // The product goes in column chunks with MPI progress between them, so the next panel's
    // broadcasts move meanwhile. Chunks do not depend on overlap, so results do not either.
    const int64_t chunk = std::max(kMinChunkColumns, (target.cols + 3) / 4);
    for (int64_t j0 = 0; target.rows > 0 && j0 < target.cols; j0 += chunk) {
      if (j0 > 0) {
        a_stream.progress();
        b_stream.progress();
      }
      local_gemm(Trans::N, Trans::N, target.rows, std::min(chunk, target.cols - j0), w, call.alpha,
                 a, target.rows, b + j0 * w, w, i == 0 ? target.beta : T(1),
                 target.c + j0 * target.ldc, target.ldc);
    }
  }
  COMMPRESS_RETURN_IF_ERROR(a_stream.status());
  return b_stream.status();
}

template Status summa_panel_loop<float>(const GemmCall<float>&, std::span<const Panel>,
                                        PanelStream<float>&, const PieceSource&,
                                        PanelStream<float>&, const PieceSource&,
                                        const LoopTarget<float>&);
template Status summa_panel_loop<double>(const GemmCall<double>&, std::span<const Panel>,
                                         PanelStream<double>&, const PieceSource&,
                                         PanelStream<double>&, const PieceSource&,
                                         const LoopTarget<double>&);

}  // namespace commpress::linalg::detail
