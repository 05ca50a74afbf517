// scatter and gather over a binomial tree, each block compressed exactly once.
//   scatter: the root compresses every other rank's block once and sends each child the
//     frames of its whole subtree (a contiguous vrank range) in one message; a rank keeps the
//     first block of what arrives and forwards the rest, unchanged, to its own children.
//   gather: every rank compresses its own block once; a rank appends its children's
//     messages (frames of their subtrees) to its own block and sends it all to its parent; the
//     root decodes each child's message as soon as it arrives.
// The root's own block is copied exactly (it never crosses the network).
#include <cstring>

#include "comm/algorithms/parts/binomial_tree.hpp"
#include "comm/selection/choose.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/comm.hpp"

namespace commpress::comm {

namespace {

using detail::Buffer;

constexpr int kScatterTag = 0x300;
constexpr int kGatherTag = 0x301;

std::string block_label(int owner) { return "block of rank " + std::to_string(owner) + ": "; }

void copy_block(void* dst, const void* src, size_t bytes) {
  if (bytes && dst != src) std::memcpy(dst, src, bytes);
}

Status scatter_tree(const detail::Collective& c, const std::byte* send, void* recv, size_t n,
                    int root, detail::Traffic& traffic) {
  const detail::Wire& w = c.wire;
  const size_t stride = n * w.elem_size();
  detail::BinomialTree tree(c.rank, c.size, root);
  const int v = tree.vrank();
  Status first;
  Buffer from_parent;
  std::vector<size_t> offsets;  // block i of our subtree (vrank v + i) spans offsets[i..i+1]
  std::vector<Buffer> packs;     // at the root: one message per child
  if (v == 0) {
    if (recv != send) copy_block(recv, send + root * stride, stride);
  } else {
    size_t cap = w.block_capacity(n) * tree.subtree_size(v);
    COMMPRESS_RETURN_IF_ERROR(detail::exchange({}, 0, MPI_PROC_NULL, from_parent, cap,
                                               tree.parent_rank(), kScatterTag, c.comm, traffic));
    auto split = w.split_blocks(from_parent, n, tree.subtree_size(v));
    detail::keep_first(first, split.status(),
                       "from rank " + std::to_string(tree.parent_rank()) + ": ");
    // Unsplittable: the children get empty messages (and fail); the pattern stays intact.
    offsets = split.ok() ? *split : std::vector<size_t>(tree.subtree_size(v) + 1, 0);
  }
  std::vector<MPI_Request> sends;
  for (int child : tree.children()) {
    int sub = tree.subtree_size(child);
    std::span<const std::byte> msg;
    if (v == 0) {
      Buffer& pack = packs.emplace_back();
      Buffer block;
      for (int u = child; u < child + sub; ++u) {
        detail::keep_first(first, w.encode_block(send + tree.rank_of(u) * stride, n, block),
                           block_label(tree.rank_of(u)));
        pack.insert(pack.end(), block.begin(), block.end());
      }
      msg = pack;
    } else {
      size_t lo = offsets[child - v], hi = offsets[child - v + sub];
      msg = std::span<const std::byte>(from_parent).subspan(lo, hi - lo);
    }
    sends.push_back(MPI_REQUEST_NULL);
    COMMPRESS_RETURN_IF_ERROR(detail::isend_message(msg, w.raw_bytes(n) * sub,
                                                    tree.rank_of(child), kScatterTag, c.comm,
                                                    &sends.back(), traffic));
  }
  if (v != 0) {  // decode our block while the children's messages leave
    std::span<const std::byte> mine(from_parent.data(), offsets[1]);
    detail::keep_first(first, w.decode_block(mine, recv, n), block_label(c.rank));
  }
  COMMPRESS_RETURN_IF_ERROR(detail::wait_all(sends));
  return first;
}

Status gather_tree(const detail::Collective& c, const void* send, std::byte* recv, size_t n,
                   int root, detail::Traffic& traffic) {
  const detail::Wire& w = c.wire;
  const size_t stride = n * w.elem_size();
  detail::BinomialTree tree(c.rank, c.size, root);
  const int v = tree.vrank();
  auto children = tree.children();  // largest subtree first
  std::vector<Buffer> from(children.size());
  std::vector<MPI_Request> recvs(children.size(), MPI_REQUEST_NULL);
  for (size_t i = 0; i < children.size(); ++i) {
    from[i].resize(w.block_capacity(n) * tree.subtree_size(children[i]));
    COMMPRESS_MPI(MPI_Irecv(from[i].data(), int(from[i].size()), MPI_BYTE,
                            tree.rank_of(children[i]), kGatherTag, c.comm, &recvs[i]));
  }
  Status first;
  if (v == 0) {
    copy_block(recv + root * stride, send, stride);
    for (size_t done = 0; done < children.size(); ++done) {  // decode in arrival order
      int i = 0;
      MPI_Status st;
      COMMPRESS_MPI(MPI_Waitany(int(recvs.size()), recvs.data(), &i, &st));
      int len = 0;
      COMMPRESS_MPI(MPI_Get_count(&st, MPI_BYTE, &len));
      std::span<const std::byte> msg(from[i].data(), size_t(len));
      int child = children[i], sub = tree.subtree_size(child);
      auto split = w.split_blocks(msg, n, sub);
      detail::keep_first(first, split.status(),
                         "from rank " + std::to_string(tree.rank_of(child)) + ": ");
      for (int u = 0; split.ok() && u < sub; ++u) {
        int owner = tree.rank_of(child + u);
        auto block = msg.subspan((*split)[u], (*split)[u + 1] - (*split)[u]);
        detail::keep_first(first, w.decode_block(block, recv + owner * stride, n),
                           block_label(owner));
      }
    }
    return first;
  }
  Buffer pack;  // our block, then each child's subtree in ascending vrank order
  detail::keep_first(first, w.encode_block(send, n, pack), "own block: ");
  std::vector<MPI_Status> st(recvs.size());
  COMMPRESS_MPI(MPI_Waitall(int(recvs.size()), recvs.data(), st.data()));
  for (size_t i = children.size(); i-- > 0;) {
    int len = 0;
    COMMPRESS_MPI(MPI_Get_count(&st[i], MPI_BYTE, &len));
    pack.insert(pack.end(), from[i].begin(), from[i].begin() + len);
  }
  std::vector<MPI_Request> up(1, MPI_REQUEST_NULL);
  COMMPRESS_RETURN_IF_ERROR(detail::isend_message(pack, w.raw_bytes(n) * tree.subtree_size(v),
                                                  tree.parent_rank(), kGatherTag, c.comm,
                                                  &up[0], traffic));
  COMMPRESS_RETURN_IF_ERROR(detail::wait_all(up));
  return first;
}

// MPI's own traffic is not observable: count what a binomial tree sends uncompressed.
void nominal_traffic(const detail::Collective& c, size_t n, int root, bool toward_root,
                     detail::Traffic& traffic) {
  detail::BinomialTree tree(c.rank, c.size, root);
  uint64_t blocks = 0;
  if (toward_root) blocks = tree.vrank() ? tree.subtree_size(tree.vrank()) : 0;
  else
    for (int child : tree.children()) blocks += tree.subtree_size(child);
  traffic.add(blocks * c.wire.raw_bytes(n), blocks * c.wire.raw_bytes(n));
}

Status scatter_mpi(const detail::Collective& c, const void* send, void* recv, size_t n, int root,
                   detail::Traffic& traffic) {
  MPI_Datatype t = detail::mpi_datatype(c.wire.dtype());
  bool in_place = c.rank == root && recv == send;
  COMMPRESS_MPI(MPI_Scatter(send, int(n), t, in_place ? MPI_IN_PLACE : recv, int(n), t, root,
                            c.comm));
  nominal_traffic(c, n, root, false, traffic);
  return {};
}

Status gather_mpi(const detail::Collective& c, const void* send, void* recv, size_t n, int root,
                  detail::Traffic& traffic) {
  MPI_Datatype t = detail::mpi_datatype(c.wire.dtype());
  bool in_place = c.rank == root && recv == send;
  COMMPRESS_MPI(MPI_Gather(in_place ? MPI_IN_PLACE : send, int(n), t, recv, int(n), t, root,
                           c.comm));
  nominal_traffic(c, n, root, true, traffic);
  return {};
}

// The most blocks one message carries: the subtree of the root's first child.
size_t largest_subtree(int size) {
  detail::BinomialTree top(0, size, 0);
  auto children = top.children();
  return children.empty() ? 0 : size_t(top.subtree_size(children.front()));
}

struct Call {
  model::Operation operation;
  const char* op;
  const void* send;
  void* recv;
  size_t n;
  Dtype dtype;
  int root;
};

Result<detail::Collective> begin(const Call& call, detail::Choice& choice, MPI_Comm comm) {
  return detail::begin_collective(
      comm,
      {call.operation, call.op, call.n, call.dtype, call.root, true, true},
      choice,
      [&](const detail::Collective& c) -> Status {
        bool is_root = c.rank == call.root;
        bool scatter = call.operation == model::Operation::scatter;
        // The root's buffer of all blocks, and this rank's own block (absent at an
        // in-place root).
        const void* all = scatter ? call.send : call.recv;
        const void* own = scatter ? call.recv : call.send;
        if (call.n > 0 && ((is_root && all == nullptr) || own == nullptr))
          return {ErrorCode::invalid_argument,
                  std::string(call.op) + ": null buffer with a non-zero count"};
        return detail::check_message_size(
            c.wire.block_capacity(call.n) * largest_subtree(c.size), call.op);
      });
}

}  // namespace

Result<Report> scatter(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                       MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  Call call{model::Operation::scatter, "scatter", send, recv, count_per_rank, dtype, root};
  auto choice = detail::choose_scatter(opts, send, count_per_rank, dtype, root, comm);
  auto c = begin(call, choice, comm);
  if (!c.ok()) return c.status();
  bool is_root = c->rank == root;
  size_t all = is_root ? count_per_rank * size_t(c->size) : 0;
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, is_root ? send : nullptr, all));
  detail::Traffic traffic;
  Status local = c->algorithm == Algorithm::Mpi
                     ? scatter_mpi(*c, send, recv, count_per_rank, root, traffic)
                     : scatter_tree(*c, static_cast<const std::byte*>(send), recv,
                                    count_per_rank, root, traffic);
  return detail::with_prediction(detail::end_collective(*c, local, traffic), choice);
}

Result<Report> gather(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                      MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  Call call{model::Operation::gather, "gather", send, recv, count_per_rank, dtype, root};
  auto choice = detail::choose_gather(opts, send, recv, count_per_rank, dtype, root, comm);
  auto c = begin(call, choice, comm);
  if (!c.ok()) return c.status();
  bool is_root = c->rank == root;
  auto* out = static_cast<std::byte*>(recv);
  // At the root, passing recv as send means MPI_IN_PLACE: its block already sits in recv.
  const void* own =
      is_root && send == recv ? out + root * count_per_rank * c->wire.elem_size() : send;
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, own, count_per_rank));
  detail::Traffic traffic;
  Status local = c->algorithm == Algorithm::Mpi
                     ? gather_mpi(*c, send, recv, count_per_rank, root, traffic)
                     : gather_tree(*c, own, out, count_per_rank, root, traffic);
  return detail::with_prediction(detail::end_collective(*c, local, traffic), choice);
}

}  // namespace commpress::comm
