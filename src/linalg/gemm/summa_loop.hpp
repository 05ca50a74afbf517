// SUMMA's panel loop on one layer: for each panel, op(A)'s piece is broadcast along the grid
// row from its owner column and op(B)'s along the grid column from its owner row, then every
// rank adds their product to its block of C. With look-ahead the next panel's broadcasts are
// posted before the current product, into the other of two buffers.
#pragma once

#include <cstdint>
#include <span>

#include "linalg/gemm/gemm_call.hpp"
#include "linalg/gemm/panel_stream.hpp"
#include "linalg/gemm/summa_panels.hpp"

namespace commpress::linalg::detail {

template <class T>
struct LoopTarget {
  T* c = nullptr;  // this rank's rows x cols block of C (or a layer's partial sum)
  int64_t ldc = 1;
  int64_t rows = 0, cols = 0;
  T beta = 0;  // applied with the first panel (or alone when there is none)
};

// Collective over the layer's row and column communicators (a_stream, b_stream). Returns the
// first failure of either stream after every broadcast has completed.
template <class T>
Status summa_panel_loop(const GemmCall<T>& call, std::span<const Panel> panels,
                        PanelStream<T>& a_stream, const PieceSource& a_source,
                        PanelStream<T>& b_stream, const PieceSource& b_source,
                        const LoopTarget<T>& target);

}  // namespace commpress::linalg::detail
