#include "comm/algorithms/plain_binomial.hpp"

#include <algorithm>
#include <climits>

#include "comm/algorithms/parts/binomial_tree.hpp"
#include "comm/session/private_comm.hpp"
#include "comm/transport/mpi_dtype.hpp"

namespace commpress::comm::detail {

namespace {

constexpr int kTag = 0x140;

}  // namespace

Status plain_binomial_bcast(const Collective& c, void* buf, size_t n, int root, Traffic& traffic) {
  const BinomialTree tree(c.rank, c.size, root);
  const auto children = tree.children_ranks();
  const MPI_Datatype type = mpi_datatype(c.wire.dtype());
  const size_t es = c.wire.elem_size();
  auto* bytes = static_cast<std::byte*>(buf);
  // One message unless the count exceeds what one MPI call can carry.
  for (size_t at = 0; at < n; at += size_t(INT_MAX)) {
    const int m = int(std::min(n - at, size_t(INT_MAX)));
    if (c.rank != root)
      COMMPRESS_MPI(
          MPI_Recv(bytes + at * es, m, type, tree.parent_rank(), kTag, c.comm, MPI_STATUS_IGNORE));
    for (int child : children)
      COMMPRESS_MPI(MPI_Send(bytes + at * es, m, type, child, kTag, c.comm));
  }
  const uint64_t sent = uint64_t(n) * es * children.size();
  traffic.add(sent, sent);
  return {};
}

}  // namespace commpress::comm::detail
