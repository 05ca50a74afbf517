// What 2.5D SUMMA adds to the panel loop: layer 0 (where A and B live) ships each other layer
// the encoded pieces of the panels that layer multiplies, encoded once, and the layers' partial
// blocks of C are summed back onto layer 0. A layer receives only the share of k it
// multiplies (not a full replica), which is all its panel loop reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "commpress/linalg.hpp"
#include "linalg/gemm/panel_stream.hpp"
#include "linalg/gemm/summa_panels.hpp"

namespace commpress::linalg::detail {

// Encodes the piece of one panel owned by this layer-0 rank.
using PanelEncoder = std::function<Status(const Panel&, const Wire&, Buffer&)>;

// Encoded pieces of op(A) (operand 0) and op(B) (operand 1) held for the panels of one layer,
// indexed like that layer's panel list.
struct HeldPieces {
  Buffer blob;
  struct Span {
    size_t offset = 0, length = 0;
    bool held = false;
  };
  std::vector<Span> at[2];
  // Copies the held bytes of one operand (a panel without a held piece fails).
  PieceSource source(int operand) const;
};

// Per-layer upper bound on what ship_layer_pieces sends from one rank: identical on every rank
// (global sizes only), so callers refuse oversized transfers unanimously.
uint64_t max_layer_shipment(std::span<const Panel> panels, int layers, int64_t piece_rows_a,
                            int64_t piece_cols_b, const Wire& a_wire, const Wire& b_wire);

// Collective over the grid's fiber_comm. rows_here / cols_here: this rank's block of C (the
// piece heights of op(A) and widths of op(B)); element_bytes: sizeof the element type. On
// layer 0 the encoders run; on layer l > 0 `held` receives the pieces of this layer's panels.
// A failure is returned after the transfer completes (peers are never left waiting).
Status ship_layer_pieces(const Grid& g, std::span<const Panel> panels, int64_t rows_here,
                         int64_t cols_here, size_t element_bytes, const PanelEncoder& encode_a,
                         const Wire& a_wire, const PanelEncoder& encode_b, const Wire& b_wire,
                         HeldPieces& held, SummaTally& tally);

// Collective over fiber_comm: sums every layer's rows x cols block into layer 0's c.
template <class T>
Status reduce_over_layers(const Grid& g, T* c, int64_t ldc, int64_t rows, int64_t cols,
                          SummaTally& tally);

}  // namespace commpress::linalg::detail
