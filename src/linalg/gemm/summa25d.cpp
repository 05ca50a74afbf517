// GemmAlgorithm::Summa25D, and the two transfers it adds to SUMMA along the grid's fibers.
#include <mpi.h>

#include <cstring>
#include <string>

#include "comm/transport/frame_transport.hpp"
#include "linalg/gemm/summa_driver.hpp"
#include "linalg/gemm/summa_layers.hpp"

namespace commpress::linalg::detail {

namespace {

constexpr int kSizeTag = 1, kBytesTag = 2;

// The pieces a rank at (row, col) owns among the panels of `layer`, in shipping order:
// for each such panel its op(A) piece, then its op(B) piece, when this rank owns them.
template <class Visit>
void for_each_owned_piece(const Grid& g, std::span<const Panel> panels, int layer,
                          int64_t rows_here, int64_t cols_here, Visit&& visit) {
  size_t local = 0;
  for (const Panel& p : panels) {
    if (p.layer != layer) continue;
    if (g.col() == p.a_owner_col && rows_here > 0) visit(p, local, true);
    if (g.row() == p.b_owner_row && cols_here > 0) visit(p, local, false);
    ++local;
  }
}

size_t panels_of_layer(std::span<const Panel> panels, int layer) {
  size_t n = 0;
  for (const Panel& p : panels) n += p.layer == layer;
  return n;
}

}  // namespace

PieceSource HeldPieces::source(int operand) const {
  return [this, operand](size_t panel, const Wire&, Buffer& out) -> Status {
    const std::vector<Span>& spans = at[operand];
    if (panel >= spans.size() || !spans[panel].held)
      return {ErrorCode::internal, "summa25d: no piece held for panel " + std::to_string(panel)};
    const Span& s = spans[panel];
    out.assign(blob.begin() + ptrdiff_t(s.offset), blob.begin() + ptrdiff_t(s.offset + s.length));
    return {};
  };
}

uint64_t max_layer_shipment(std::span<const Panel> panels, int layers, int64_t piece_rows_a,
                            int64_t piece_cols_b, const Wire& a_wire, const Wire& b_wire) {
  uint64_t worst = 0;
  for (int l = 1; l < layers; ++l) {
    uint64_t total = 0;
    for (const Panel& p : panels)
      if (p.layer == l)
        total += a_wire.frame_capacity(size_t(piece_rows_a * p.width)) +
                 b_wire.frame_capacity(size_t(p.width * piece_cols_b)) + 2 * sizeof(uint64_t);
    worst = std::max(worst, total);
  }
  return worst;
}

namespace {

// Layer 0: two messages per other layer (through comm's transport, which counts them): the
// shipment's size, then the shipment: the piece lengths, then the pieces.
Status send_pieces(const Grid& g, std::span<const Panel> panels, int64_t rows_here,
                   int64_t cols_here, size_t element_bytes, const PanelEncoder& encode_a,
                   const Wire& a_wire, const PanelEncoder& encode_b, const Wire& b_wire,
                   SummaTally& tally) {
  using comm::detail::isend_message;
  const size_t layers = static_cast<size_t>(g.layers());
  std::vector<Buffer> blobs(layers);
  std::vector<uint64_t> sizes(layers, 0);
  std::vector<MPI_Request> requests;
  Buffer piece;
  Status failed;
  for (int l = 1; l < g.layers(); ++l) {
    std::vector<uint64_t> lengths;
    Buffer body;
    uint64_t raw = 0;
    for_each_owned_piece(
        g, panels, l, rows_here, cols_here, [&](const Panel& p, size_t, bool is_a) {
          const Status st = is_a ? encode_a(p, a_wire, piece) : encode_b(p, b_wire, piece);
          if (!st.ok() && failed.ok()) failed = st;
          if (!st.ok()) piece.clear();  // the receiver then fails to decode, never hangs
          lengths.push_back(piece.size());
          body.insert(body.end(), piece.begin(), piece.end());
          raw += uint64_t(is_a ? rows_here * p.width : p.width * cols_here) * element_bytes;
        });
    Buffer& blob = blobs[size_t(l)];
    blob.resize(lengths.size() * sizeof(uint64_t));
    if (!lengths.empty()) std::memcpy(blob.data(), lengths.data(), blob.size());
    blob.insert(blob.end(), body.begin(), body.end());
    sizes[size_t(l)] = blob.size();
    tally.memory_bytes += blob.capacity();
    requests.emplace_back();
    COMMPRESS_RETURN_IF_ERROR(isend_message(
        std::as_bytes(std::span<const uint64_t>(&sizes[size_t(l)], 1)), 0, l, kSizeTag,
        g.fiber_comm(), &requests.back(), tally.traffic));
    if (blob.empty()) continue;  // the layer learns from the size that nothing follows
    requests.emplace_back();
    // max_layer_shipment bounded this below INT_MAX before any transfer.
    COMMPRESS_RETURN_IF_ERROR(isend_message(blob, raw, l, kBytesTag, g.fiber_comm(),
                                            &requests.back(), tally.traffic));
  }
  COMMPRESS_RETURN_IF_ERROR(comm::detail::wait_all(requests));
  return failed;
}

// Layers l > 0: the message from layer 0, indexed by this layer's panels. Trusts no length
// from the wire: the header and every piece must lie inside the message.
Status receive_pieces(const Grid& g, std::span<const Panel> panels, int64_t rows_here,
                      int64_t cols_here, HeldPieces& held, SummaTally& tally) {
  using comm::detail::exchange;
  Buffer word;
  COMMPRESS_RETURN_IF_ERROR(exchange({}, 0, MPI_PROC_NULL, word, sizeof(uint64_t), 0, kSizeTag,
                                     g.fiber_comm(), tally.traffic));
  uint64_t size = 0;
  if (word.size() != sizeof(size))
    return {ErrorCode::corrupt_frame, "summa25d: a shipment size of " +
                                          std::to_string(word.size()) + " bytes"};
  std::memcpy(&size, word.data(), sizeof(size));
  Buffer& blob = held.blob;
  blob.clear();
  if (size)
    COMMPRESS_RETURN_IF_ERROR(exchange({}, 0, MPI_PROC_NULL, blob, size_t(size), 0, kBytesTag,
                                       g.fiber_comm(), tally.traffic));
  tally.memory_bytes += blob.capacity();
  const size_t mine = panels_of_layer(panels, g.layer());
  held.at[0].assign(mine, {});
  held.at[1].assign(mine, {});
  size_t count = 0;
  for_each_owned_piece(g, panels, g.layer(), rows_here, cols_here,
                       [&](const Panel&, size_t, bool) { ++count; });
  const size_t header = count * sizeof(uint64_t);
  if (header > blob.size())
    return {ErrorCode::corrupt_frame, "summa25d: layer pieces of " + std::to_string(size) +
                                          " bytes cannot hold " + std::to_string(count) +
                                          " piece lengths"};
  size_t next = header, index = 0;
  Status failed;
  for_each_owned_piece(
      g, panels, g.layer(), rows_here, cols_here, [&](const Panel&, size_t local, bool is_a) {
        uint64_t length = 0;
        std::memcpy(&length, blob.data() + index++ * sizeof(uint64_t), sizeof(length));
        if (length > blob.size() - next) {
          if (failed.ok())
            failed = {ErrorCode::corrupt_frame,
                      "summa25d: a layer piece of " + std::to_string(length) +
                          " bytes overruns its " + std::to_string(size) + "-byte shipment"};
          return;
        }
        held.at[is_a ? 0 : 1][local] = {next, size_t(length), true};
        next += size_t(length);
      });
  return failed;
}

}  // namespace

Status ship_layer_pieces(const Grid& g, std::span<const Panel> panels, int64_t rows_here,
                         int64_t cols_here, size_t element_bytes, const PanelEncoder& encode_a,
                         const Wire& a_wire, const PanelEncoder& encode_b, const Wire& b_wire,
                         HeldPieces& held, SummaTally& tally) {
  if (g.layer() == 0)
    return send_pieces(g, panels, rows_here, cols_here, element_bytes, encode_a, a_wire, encode_b,
                       b_wire, tally);
  return receive_pieces(g, panels, rows_here, cols_here, held, tally);
}

template <class T>
Status reduce_over_layers(const Grid& g, T* c, int64_t ldc, int64_t rows, int64_t cols,
                          SummaTally& tally) {
  const int64_t n = rows * cols;
  if (n == 0) return {};
  const MPI_Datatype type = sizeof(T) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
  std::vector<T> packed;
  T* buf = c;
  if (ldc != rows) {
    packed.resize(size_t(n));
    for (int64_t j = 0; j < cols; ++j)
      std::memcpy(&packed[size_t(j * rows)], c + j * ldc, size_t(rows) * sizeof(T));
    buf = packed.data();
    tally.memory_bytes += packed.size() * sizeof(T);
  }
  // Every rank but the root sends its block once in MPI's reduction tree.
  if (g.layer() != 0) tally.traffic.add(uint64_t(n) * sizeof(T), uint64_t(n) * sizeof(T));
  if (MPI_Reduce(g.layer() == 0 ? MPI_IN_PLACE : buf, buf, int(n), type, MPI_SUM, 0,
                 g.fiber_comm()) != MPI_SUCCESS)
    return {ErrorCode::internal, "summa25d: MPI_Reduce of C over the layers failed"};
  if (g.layer() == 0 && buf != c)
    for (int64_t j = 0; j < cols; ++j)
      std::memcpy(c + j * ldc, &packed[size_t(j * rows)], size_t(rows) * sizeof(T));
  return {};
}

template <class T>
Status run_summa25d(const GemmCall<T>& call, GemmReport& report) {
  return summa_on_grid(call, report);
}

template Status reduce_over_layers<float>(const Grid&, float*, int64_t, int64_t, int64_t,
                                          SummaTally&);
template Status reduce_over_layers<double>(const Grid&, double*, int64_t, int64_t, int64_t,
                                           SummaTally&);
template Status run_summa25d<float>(const GemmCall<float>&, GemmReport&);
template Status run_summa25d<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
