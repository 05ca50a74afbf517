#include "comm/algorithms/rabenseifner.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "comm/algorithms/parts/reduce_exchange.hpp"
#include "comm/algorithms/parts/reduce_fold.hpp"
#include "comm/algorithms/parts/reduce_gather.hpp"
#include "comm/algorithms/runner.hpp"

namespace commpress::comm::detail {

namespace {

constexpr int kFoldTag = 0x430;
constexpr int kHalvingTag = 0x431;
constexpr int kHandBackTag = 0x432;
constexpr int kDoublingTag = 0x433;
constexpr int kUnfoldTag = 0x434;

using Range = std::pair<size_t, size_t>;  // elements [first, second)

class Schedule {
 public:
  Schedule(const BlockLayout& layout, int p) : layout_(layout), fold_(p) {}
  const Fold& fold() const { return fold_; }
  // Elements of the super-blocks of newranks [a, b).
  Range range(int a, int b) const {
    return {layout_.off[fold_.first_rank(a)], layout_.off[fold_.end_rank(b - 1)]};
  }
  static size_t size(Range r) { return r.second - r.first; }

 private:
  const BlockLayout& layout_;
  Fold fold_;
};

// One halving step of newrank v over its current super-block range [lo, hi): it keeps the
// half holding its own super-block and gives the other to v ^ mask.
struct Halves {
  Range keep, give;
  int lo, hi;  // the kept newrank range
};
Halves halve(const Schedule& s, int v, int lo, int hi, int mask) {
  int mid = lo + mask;
  if (v & mask) return {s.range(mid, hi), s.range(lo, mid), mid, hi};
  return {s.range(lo, mid), s.range(mid, hi), lo, mid};
}

// The fold's receiver writes all of acc (input + its partner's vector); it returns where this
// rank's partial values now live: acc there, still the input elsewhere.
Result<const std::byte*> fold_in(const ReduceContext& ctx, const Fold& f, const std::byte* input,
                                 std::byte* acc, size_t n) {
  const int r = ctx.rank;
  if (!f.folded(r)) return input;
  Wire w = wire_for(ctx, n);
  if (f.sits_out(r)) {
    COMMPRESS_RETURN_IF_ERROR(exchange_values(
        ctx, {&w, input, n, r + 1}, {&w, nullptr, 0, MPI_PROC_NULL, Arrival::assign}, kFoldTag));
    return input;
  }
  COMMPRESS_RETURN_IF_ERROR(exchange_values(
      ctx, {&w, nullptr, 0, MPI_PROC_NULL}, {&w, acc, n, r - 1, Arrival::reduce, input}, kFoldTag));
  return static_cast<const std::byte*>(acc);
}

// The partial values start at `from` (the input, or acc after a fold) and end in acc: each
// step writes the half it keeps, so no step before the first needs a copy of the input.
Status halving(const ReduceContext& ctx, const Schedule& s, const std::byte* from,
               std::byte* acc) {
  const int v = s.fold().newrank(ctx.rank);
  if (v < 0) return {};
  const size_t es = ctx.wire.elem_size();
  int lo = 0, hi = s.fold().p2;
  for (int mask = s.fold().p2 / 2; mask >= 1; mask /= 2) {
    Halves h = halve(s, v, lo, hi, mask);
    const int partner = s.fold().rank_of(v ^ mask);
    Wire wg = wire_for(ctx, Schedule::size(h.give)), wk = wire_for(ctx, Schedule::size(h.keep));
    COMMPRESS_RETURN_IF_ERROR(exchange_values(
        ctx, {&wg, from + h.give.first * es, Schedule::size(h.give), partner},
        {&wk, acc + h.keep.first * es, Schedule::size(h.keep), partner, Arrival::reduce,
         from + h.keep.first * es},
        kHalvingTag));
    from = acc;
    lo = h.lo;
    hi = h.hi;
  }
  return {};
}

// reduce_scatter_block: a pair's odd rank holds both blocks and hands the even one back.
Status scatter_end(const ReduceContext& ctx, const BlockLayout& layout, const Fold& f,
                   const std::byte* acc, std::byte* out) {
  const int r = ctx.rank;
  const size_t es = ctx.wire.elem_size();
  if (f.sits_out(r)) {
    Wire w = wire_for(ctx, layout.size(r));
    return exchange_values(ctx, {&w, nullptr, 0, MPI_PROC_NULL},
                           {&w, out, layout.size(r), r + 1, Arrival::assign}, kHandBackTag);
  }
  if (layout.size(r)) std::memcpy(out, acc + layout.begin(r) * es, layout.size(r) * es);
  if (!f.folded(r)) return {};
  Wire w = wire_for(ctx, layout.size(r - 1));
  return exchange_values(ctx, {&w, acc + layout.begin(r - 1) * es, layout.size(r - 1), r - 1},
                         {&w, nullptr, 0, MPI_PROC_NULL, Arrival::assign}, kHandBackTag);
}

// allreduce: recursive doubling over newranks with the encoded super-blocks, then the odd
// rank of each pair passes everything to the even one. Bytes travel unchanged.
class Doubling {
 public:
  Doubling(const ReduceContext& ctx, const Schedule& s, std::byte* out) : ctx_(ctx), s_(s), out_(out) {}

  Status run(const std::byte* acc) {
    const Fold& f = s_.fold();
    const int r = ctx_.rank, v = f.newrank(r);
    if (v >= 0) {
      Range own = s_.range(v, v + 1);
      Wire w = wire_for(ctx_, Schedule::size(own));
      ctx_.fail(w.encode_block(acc + own.first * es(), Schedule::size(own), held_), "own block: ");
      pending_.push_back({v, 0, held_.size()});
      int lo = v, hi = v + 1;
      for (int mask = 1; mask < f.p2; mask *= 2) {
        int plo = (v ^ mask) & ~(mask - 1), phi = plo + mask;
        Buffer in;
        PendingExchange x;
        const int partner = f.rank_of(v ^ mask);
        COMMPRESS_RETURN_IF_ERROR(x.start(held_, raw(lo, hi), partner, in, capacity(plo, phi),
                                          partner, kDoublingTag, ctx_.comm, ctx_.traffic));
        decode_pending();  // what arrived before decodes while this exchange runs
        COMMPRESS_RETURN_IF_ERROR(x.finish());
        merge(std::move(in), plo, phi, plo < lo, "from rank " + std::to_string(partner) + ": ");
        lo = std::min(lo, plo);
        hi = std::max(hi, phi);
      }
      decode_pending();
    }
    if (!f.folded(r)) return {};
    if (!f.sits_out(r)) {
      PendingExchange x;
      Buffer none;
      COMMPRESS_RETURN_IF_ERROR(x.start(held_, raw(0, f.p2), r - 1, none, 0, MPI_PROC_NULL,
                                        kUnfoldTag, ctx_.comm, ctx_.traffic));
      return x.finish();
    }
    Buffer in;
    COMMPRESS_RETURN_IF_ERROR(exchange({}, 0, MPI_PROC_NULL, in, capacity(0, f.p2), r + 1,
                                       kUnfoldTag, ctx_.comm, ctx_.traffic));
    merge(std::move(in), 0, f.p2, false, "from rank " + std::to_string(r + 1) + ": ");
    decode_pending();
    return {};
  }

 private:
  struct Piece {
    int v;
    size_t off, len;  // in held_
  };

  size_t es() const { return ctx_.wire.elem_size(); }
  Wire wire_of(int u) const { return wire_for(ctx_, Schedule::size(s_.range(u, u + 1))); }
  uint64_t raw(int a, int b) const { return ctx_.wire.raw_bytes(Schedule::size(s_.range(a, b))); }
  size_t capacity(int a, int b) const {
    size_t cap = 0;
    for (int u = a; u < b; ++u) cap += wire_of(u).block_capacity(Schedule::size(s_.range(u, u + 1)));
    return cap;
  }

  // Splits the bytes of super-blocks [a, b) and adds them before or after held_.
  void merge(Buffer in, int a, int b, bool before, const std::string& where) {
    std::vector<Piece> pieces;
    size_t pos = 0;
    Status st;
    for (int u = a; u < b && !upstream_failed(in); ++u) {
      Range r = s_.range(u, u + 1);
      auto len = wire_of(u).block_extent(std::span<const std::byte>(in).subspan(pos),
                                         Schedule::size(r));
      st = len.status();
      if (!len.ok()) {
        st = {st.code(), "block of newrank " + std::to_string(u) + ": " + st.message()};
        break;
      }
      pieces.push_back({u, pos, *len});
      pos += *len;
    }
    if (st.ok() && pos != in.size() && !upstream_failed(in))
      st = {ErrorCode::corrupt_frame, std::to_string(in.size() - pos) + " bytes trail the blocks"};
    ctx_.fail(st, where);  // undecodable bytes still travel on, so the pattern stays intact
    if (before) {
      for (Piece& p : pending_) p.off += in.size();
      in.insert(in.end(), held_.begin(), held_.end());
      held_ = std::move(in);
    } else {
      for (Piece& p : pieces) p.off += held_.size();
      held_.insert(held_.end(), in.begin(), in.end());
    }
    pending_.insert(pending_.end(), pieces.begin(), pieces.end());
  }

  void decode_pending() {
    for (const Piece& p : pending_) {
      Range r = s_.range(p.v, p.v + 1);
      ctx_.fail(wire_of(p.v).decode_block(std::span<const std::byte>(held_).subspan(p.off, p.len),
                                          out_ + r.first * es(), Schedule::size(r)),
                "block of newrank " + std::to_string(p.v) + ": ");
    }
    pending_.clear();
  }

  const ReduceContext& ctx_;
  const Schedule& s_;
  std::byte* out_;
  Buffer held_;
  std::vector<Piece> pending_;
};

Status root_end(const ReduceContext& ctx, const Schedule& s, const std::byte* acc, int root,
                std::byte* out) {
  const Fold& f = s.fold();
  const int v = f.newrank(ctx.rank);
  const size_t es = ctx.wire.elem_size();
  std::vector<BlockSource> blocks;
  for (int u = 0; u < f.p2; ++u) {
    Range r = s.range(u, u + 1);
    blocks.push_back({f.rank_of(u), r.first, Schedule::size(r), wire_for(ctx, Schedule::size(r))});
  }
  OwnedBlock own;
  if (v >= 0) {
    const BlockSource& b = blocks[v];
    if (ctx.rank == root) {  // never encoded: the root's own block stays exact
      if (b.n) std::memcpy(out + b.begin * es, acc + b.begin * es, b.n * es);
    } else {
      own = encode_owned(ctx, b.wire, acc + b.begin * es, b.begin, b.n);
    }
  }
  return gather_to_root(ctx, blocks, v >= 0 && ctx.rank != root ? &own : nullptr, root, out);
}

}  // namespace

QuantizationCount rabenseifner_quantizations(const Wire& wire, size_t break_even, int p,
                                             const BlockLayout& layout, ReduceEnd end) {
  if (!wire.lossy() || p <= 1) return {};
  const Schedule s(layout, p);
  const Fold& f = s.fold();
  auto lossy = [&](size_t n) { return compresses(wire, break_even, n); };
  QuantizationCount q;
  // The fold adds one quantized copy to each of rem partials.
  if (f.rem > 0 && lossy(layout.total())) q = {f.rem, 1};
  // Halving with mask m merges m pairs of partials behind every element; a step counts as
  // lossy if any of its transfers is compressed.
  std::vector<int> lo(f.p2, 0), hi(f.p2, f.p2);
  for (int mask = f.p2 / 2; mask >= 1; mask /= 2) {
    bool any = false;
    for (int v = 0; v < f.p2; ++v) {
      Halves h = halve(s, v, lo[v], hi[v], mask);
      any = any || lossy(Schedule::size(h.give));
      lo[v] = h.lo;
      hi[v] = h.hi;
    }
    if (any) q = {q.additive + mask, q.depth + 1};
  }
  // The finished block encoded once more to travel (the root's own stays exact).
  bool last = false;
  if (end == ReduceEnd::scatter)
    for (int v = 0; v < f.rem; ++v) last = last || lossy(layout.size(2 * v));
  else
    for (int v = 0; v < f.p2; ++v) last = last || lossy(Schedule::size(s.range(v, v + 1)));
  if (last) q = {q.additive + 1, q.depth + 1};
  return q;
}

Status rabenseifner(const ReduceContext& ctx, const std::byte* input, const BlockLayout& layout,
                    ReduceEnd end, int root, std::byte* out) {
  const size_t n = layout.total(), es = ctx.wire.elem_size();
  // Written by the fold or the halving before anything reads it: no copy of the input, no
  // zeroing, pages the cache keeps from the last call (buffer.hpp).
  Buffer acc(n * es);
  const Schedule s(layout, ctx.size);
  auto from = fold_in(ctx, s.fold(), input, acc.data(), n);
  if (!from.ok()) return from.status();
  COMMPRESS_RETURN_IF_ERROR(halving(ctx, s, *from, acc.data()));
  switch (end) {
    case ReduceEnd::scatter: return scatter_end(ctx, layout, s.fold(), acc.data(), out);
    case ReduceEnd::all: return Doubling(ctx, s, out).run(acc.data());
    case ReduceEnd::root: return root_end(ctx, s, acc.data(), root, out);
  }
  return {};
}

namespace {

QuantizationCount quantizations(const ReduceShape& shape) {
  const bool scatter = shape.operation == model::Operation::reduce_scatter;
  const BlockLayout layout = scatter ? BlockLayout::uniform(shape.count, shape.ranks)
                                     : BlockLayout::even(shape.count, shape.ranks);
  const ReduceEnd end = scatter                                           ? ReduceEnd::scatter
                        : shape.operation == model::Operation::allreduce ? ReduceEnd::all
                                                                          : ReduceEnd::root;
  return rabenseifner_quantizations(shape.wire, shape.break_even, shape.ranks, layout, end);
}

}  // namespace

const Runner rabenseifner_runner{
    [](ReduceSession& s, const std::byte* in, std::byte* out, size_t n) {
      return rabenseifner(s.context(), in, BlockLayout::even(n, s.size()), ReduceEnd::all, 0, out);
    },
    [](ReduceSession& s, const std::byte* in, std::byte* out, size_t m) {
      return rabenseifner(s.context(), in, BlockLayout::uniform(m, s.size()), ReduceEnd::scatter,
                          0, out);
    },
    [](ReduceSession& s, const std::byte* in, std::byte* out, size_t n, int root) {
      return rabenseifner(s.context(), in, BlockLayout::even(n, s.size()), ReduceEnd::root, root,
                          out);
    },
    quantizations};

}  // namespace commpress::comm::detail
