// scatter and gather over a binomial tree, each block compressed exactly once.
//   scatter: the root compresses every other rank's block once and sends each child the
//     frames of its whole subtree (a contiguous vrank range) in one message; a rank keeps the
//     first block of what arrives and forwards the rest, unchanged, to its own children.
//   gather: every rank compresses its own block once; a rank appends its children's
//     messages (frames of their subtrees) to its own block and sends it all to its parent; the
//     root decodes each child's message as soon as it arrives.
// The root's own block is copied exactly (it never crosses the network). Both plan first
// (plan_movement, after the agreement) and then run the plan's algorithm.
#include <cstring>
#include <utility>

#include "comm/algorithms/parts/binomial_tree.hpp"
#include "comm/selection/choose.hpp"
#include "comm/selection/planning.hpp"
#include "comm/session/codec_threads.hpp"
#include "comm/session/collective.hpp"
#include "comm/session/count_limit.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"
#include "commpress/collective_plan.hpp"
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

// This rank's block of a gather: send, or at an in-place root (send == recv) its slot of recv.
const void* own_block(int rank, const Call& call) {
  if (call.operation == model::Operation::gather && rank == call.root && call.send == call.recv &&
      call.recv)
    return static_cast<const std::byte*>(call.recv) +
           size_t(call.root) * call.n * codec::dtype_size(call.dtype);
  return call.send;
}

// The data a REL bound is taken over on this rank: a scatter's blocks at the root, a
// gather's own block.
std::pair<const void*, size_t> bounded_data(int rank, int size, const Call& call) {
  if (call.operation == model::Operation::gather) return {own_block(rank, call), call.n};
  if (rank != call.root || size <= 0) return {nullptr, 0};
  return {call.send, detail::saturating_blocks(call.n, size_t(size))};
}

// The call's agreement and its plan (given: a plan made earlier, to agree on); plan_only
// stops there and needs only the buffer whose data travels (scatter: the root's send;
// gather: this rank's send).
Result<detail::PlannedCall> agree_and_plan(const Call& call, detail::Choice& choice,
                                           MPI_Comm comm, const CollectivePlan* given,
                                           bool plan_only) {
  const bool scatter = call.operation == model::Operation::scatter;
  const detail::Place at = detail::place_in(comm);
  const auto [data, n] = bounded_data(at.rank, at.size, call);
  detail::AgreementExtras range = detail::range_extras(choice, call.dtype, data, n);
  auto c = detail::begin_collective(
      comm, {call.operation, call.op, call.n, call.dtype, call.root, true, true}, choice,
      [&](const detail::Collective& c) -> Status {
        if (given)
          COMMPRESS_RETURN_IF_ERROR(detail::matches_plan(*given, call.operation, call.op, c.size));
        bool is_root = c.rank == call.root;
        // The root's buffer of all blocks, and this rank's own block (absent at an
        // in-place root).
        const void* all = scatter ? call.send : call.recv;
        const void* own = scatter ? call.recv : call.send;
        const bool all_missing = is_root && all == nullptr && !(plan_only && !scatter);
        const bool own_missing = own == nullptr && !(plan_only && scatter);
        if (call.n > 0 && (all_missing || own_missing))
          return {ErrorCode::invalid_argument,
                  std::string(call.op) + ": null buffer with a non-zero count"};
        return detail::check_message_size(
            c.wire.block_capacity(call.n) * largest_subtree(c.size), call.op);
      },
      &range);
  if (!c.ok()) return c.status();
  COMMPRESS_RETURN_IF_ERROR(detail::resolve_bound(*c, range, data, n));
  AgreedCall agreed;
  agreed.operation = call.operation;
  agreed.count = call.n;
  agreed.dtype = call.dtype;
  agreed.root = call.root;
  return detail::plan_movement(*c, agreed, choice, given);
}

// Runs the plan: its algorithm, on the wire every rank built from it.
Result<Report> execute(const detail::PlannedCall& p, const Call& call) {
  const detail::Collective& c = p.c;
  const bool mpi = p.plan.algorithm == Algorithm::Mpi;
  detail::Traffic traffic;
  Status local;
  if (call.operation == model::Operation::scatter)
    local = mpi ? scatter_mpi(c, call.send, call.recv, call.n, call.root, traffic)
                : scatter_tree(c, static_cast<const std::byte*>(call.send), call.recv, call.n,
                               call.root, traffic);
  else
    local = mpi ? gather_mpi(c, call.send, call.recv, call.n, call.root, traffic)
                : gather_tree(c, own_block(c.rank, call), static_cast<std::byte*>(call.recv), call.n,
                              call.root, traffic);
  return detail::end_planned(p, local, traffic);
}

Call scatter_call(const void* send, void* recv, size_t n, Dtype dtype, int root) {
  return {model::Operation::scatter, "scatter", send, recv, n, dtype, root};
}
Call gather_call(const void* send, void* recv, size_t n, Dtype dtype, int root) {
  return {model::Operation::gather, "gather", send, recv, n, dtype, root};
}

}  // namespace

Result<Report> scatter(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                       MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  const Call call = scatter_call(send, recv, count_per_rank, dtype, root);
  auto choice = detail::choose_scatter(opts, send, count_per_rank, dtype, root, comm);
  auto p = agree_and_plan(call, choice, comm, nullptr, false);
  if (!p.ok()) return p.status();
  return execute(*p, call);
}

Result<Report> scatter(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm) {
  const detail::CodecThreads threads;
  const Call call = scatter_call(send, recv, plan.count, plan.dtype, plan.root);
  auto choice = detail::choice_of(plan);
  auto p = agree_and_plan(call, choice, comm, &plan, false);
  if (!p.ok()) return p.status();
  return execute(*p, call);
}

Result<CollectivePlan> plan_scatter(const void* send, size_t count_per_rank, Dtype dtype,
                                    int root, MPI_Comm comm, const Options& opts) {
  const Call call = scatter_call(send, nullptr, count_per_rank, dtype, root);
  auto choice = detail::choose_scatter(opts, send, count_per_rank, dtype, root, comm);
  auto p = agree_and_plan(call, choice, comm, nullptr, true);
  if (!p.ok()) return p.status();
  return std::move(p->plan);
}

Result<Report> gather(const void* send, void* recv, size_t count_per_rank, Dtype dtype, int root,
                      MPI_Comm comm, const Options& opts) {
  const detail::CodecThreads threads;
  const Call call = gather_call(send, recv, count_per_rank, dtype, root);
  auto choice = detail::choose_gather(opts, send, recv, count_per_rank, dtype, root, comm);
  auto p = agree_and_plan(call, choice, comm, nullptr, false);
  if (!p.ok()) return p.status();
  return execute(*p, call);
}

Result<Report> gather(const CollectivePlan& plan, const void* send, void* recv, MPI_Comm comm) {
  const detail::CodecThreads threads;
  const Call call = gather_call(send, recv, plan.count, plan.dtype, plan.root);
  auto choice = detail::choice_of(plan);
  auto p = agree_and_plan(call, choice, comm, &plan, false);
  if (!p.ok()) return p.status();
  return execute(*p, call);
}

Result<CollectivePlan> plan_gather(const void* send, size_t count_per_rank, Dtype dtype, int root,
                                   MPI_Comm comm, const Options& opts) {
  const Call call = gather_call(send, nullptr, count_per_rank, dtype, root);
  auto choice = detail::choose_gather(opts, send, nullptr, count_per_rank, dtype, root, comm);
  auto p = agree_and_plan(call, choice, comm, nullptr, true);
  if (!p.ok()) return p.status();
  return std::move(p->plan);
}

}  // namespace commpress::comm
