// The intercepted collectives. Each one maps MPI's arguments onto commpress's verb, with
// MPI_IN_PLACE as commpress's aliased buffers, and leaves every case commpress does not
// implement to `pass` (PMPI_* for the C entry points at the end of this file).
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pmpi/collective_calls.hpp"
#include "pmpi/intercept.hpp"

namespace commpress::pmpi {

namespace {

constexpr const char* kAliased = "send and receive buffers are the same without MPI_IN_PLACE";

int comm_size(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size;
}

}  // namespace

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, const Pass& pass) {
  const Policy* p = active_policy(comm, kAllreduce);
  if (!p || count <= 0) return pass();
  const CallFacts f{"MPI_Allreduce", kAllreduce, size_t(count), datatype, op,
                    bytes_of(size_t(count), datatype)};
  if (!large_enough(*p, f)) return pass();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::string refusal = reduction_refusal(datatype, op, *p);
  if (refusal.empty() && !in_place && sendbuf == recvbuf) refusal = kAliased;
  return intercept({f, comm, refusal,
                    [&](const comm::Options& o) {
                      return comm::allreduce(in_place ? recvbuf : sendbuf, recvbuf,
                                             size_t(count), *float_dtype(datatype),
                                             *builtin_op(op), comm, o);
                    },
                    pass},
                   *p);
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm, const Pass& pass) {
  const Policy* p = active_policy(comm, kReduce);
  if (!p || count <= 0) return pass();
  const CallFacts f{"MPI_Reduce", kReduce, size_t(count), datatype, op,
                    bytes_of(size_t(count), datatype)};
  if (!large_enough(*p, f)) return pass();
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::string refusal = reduction_refusal(datatype, op, *p);
  if (refusal.empty() && in_place && rank != root) refusal = "MPI_IN_PLACE outside the root";
  if (refusal.empty() && !in_place && rank == root && sendbuf == recvbuf) refusal = kAliased;
  return intercept({f, comm, refusal,
                    [&](const comm::Options& o) {
                      return comm::reduce(in_place ? recvbuf : sendbuf, recvbuf, size_t(count),
                                          *float_dtype(datatype), *builtin_op(op), root, comm,
                                          o);
                    },
                    pass},
                   *p);
}

namespace {

int equal_blocks(const CallFacts& f, const Policy& p, const void* sendbuf, void* recvbuf,
                         int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         const std::string& refused, const Pass& pass) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::string refusal = refused.empty() ? reduction_refusal(datatype, op, p) : refused;
  if (refusal.empty() && !in_place && sendbuf == recvbuf) refusal = kAliased;
  return intercept({f, comm, refusal,
                    [&](const comm::Options& o) {
                      return comm::reduce_scatter_block(in_place ? recvbuf : sendbuf, recvbuf,
                                                        size_t(recvcount),
                                                        *float_dtype(datatype),
                                                        *builtin_op(op), comm, o);
                    },
                    pass},
                   p);
}

}  // namespace

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const Pass& pass) {
  const Policy* p = active_policy(comm, kReduceScatterBlock);
  if (!p || recvcount <= 0) return pass();
  const size_t total = size_t(recvcount) * size_t(comm_size(comm));
  const CallFacts f{"MPI_Reduce_scatter_block", kReduceScatterBlock, total, datatype, op,
                    bytes_of(total, datatype)};
  if (!large_enough(*p, f)) return pass();
  return equal_blocks(f, *p, sendbuf, recvbuf, recvcount, datatype, op, comm, {}, pass);
}

// commpress reduces equal blocks only: unequal counts go to MPI, which handles them natively
// (padding them to the largest would change the value range a REL bound refers to).
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const Pass& pass) {
  const Policy* p = active_policy(comm, kReduceScatter);
  if (!p || recvcounts == nullptr) return pass();
  const int size = comm_size(comm);
  size_t total = 0;
  bool equal = true;
  for (int r = 0; r < size; ++r) {
    if (recvcounts[r] < 0) return pass();
    total += size_t(recvcounts[r]);
    equal = equal && recvcounts[r] == recvcounts[0];
  }
  const CallFacts f{"MPI_Reduce_scatter", kReduceScatter, total, datatype, op,
                    bytes_of(total, datatype)};
  if (total == 0 || !large_enough(*p, f)) return pass();
  return equal_blocks(f, *p, sendbuf, recvbuf, recvcounts[0], datatype, op, comm,
                              equal ? "" : "unequal recvcounts", pass);
}

int bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          const Pass& pass) {
  const Policy* p = active_policy(comm, kBcast);
  if (!p || count <= 0) return pass();
  const CallFacts f{"MPI_Bcast", kBcast, size_t(count), datatype, MPI_OP_NULL,
                    bytes_of(size_t(count), datatype)};
  if (!large_enough(*p, f)) return pass();
  return intercept({f, comm, type_refusal(datatype),
                    [&](const comm::Options& o) {
                      return comm::bcast(buffer, size_t(count), *float_dtype(datatype), root,
                                         comm, o);
                    },
                    pass},
                   *p);
}

namespace {

// Allgather and alltoall: one block of recvcount elements per rank, sent as recvtype.
int blocks_per_rank(const char* mpi_name, unsigned bit, const void* sendbuf, int sendcount,
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, const Pass& pass,
                    Result<comm::Report> (*verb)(const void*, void*, size_t, comm::Dtype,
                                                 MPI_Comm, const comm::Options&)) {
  const Policy* p = active_policy(comm, bit);
  if (!p || recvcount <= 0) return pass();
  const size_t total = size_t(recvcount) * size_t(comm_size(comm));
  const CallFacts f{mpi_name, bit, total, recvtype, MPI_OP_NULL, bytes_of(total, recvtype)};
  if (!large_enough(*p, f)) return pass();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::string refusal = type_refusal(recvtype);
  if (refusal.empty() && !in_place && (sendtype != recvtype || sendcount != recvcount))
    refusal = "send and receive types or counts differ";
  if (refusal.empty() && !in_place && sendbuf == recvbuf) refusal = kAliased;
  return intercept({f, comm, refusal,
                    [&](const comm::Options& o) {
                      return verb(in_place ? recvbuf : sendbuf, recvbuf, size_t(recvcount),
                                  *float_dtype(recvtype), comm, o);
                    },
                    pass},
                   *p);
}

}  // namespace

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass) {
  return blocks_per_rank("MPI_Allgather", kAllgather, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, recvtype, comm, pass, &comm::allgather);
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass) {
  return blocks_per_rank("MPI_Alltoall", kAlltoall, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, recvtype, comm, pass, &comm::alltoall);
}

// MPI_Alltoallv follows alltoall's bit in COMMPRESS_OPS. Its sizes differ between ranks, so
// whether a call is large enough cannot be decided alike on every rank without talking: each
// rank's "below COMMPRESS_MIN_BYTES" is one more reason in the agreement intercept() holds,
// and the call runs through commpress only when every rank moves at least min_bytes (sent or
// received). That agreement (one small allreduce) is what every MPI_Alltoallv under such a
// policy pays, small ones included.
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, const Pass& pass) {
  const Policy* p = active_policy(comm, kAlltoall);
  if (!p || sendbuf == MPI_IN_PLACE || !sendcounts || !sdispls || !recvcounts || !rdispls)
    return pass();
  const int size = comm_size(comm);
  const auto n = static_cast<size_t>(size);
  std::vector<size_t> sc(n), sd(n), rc(n), rd(n);
  size_t sent = 0, received = 0;
  for (int r = 0; r < size; ++r) {
    if (sendcounts[r] < 0 || sdispls[r] < 0 || recvcounts[r] < 0 || rdispls[r] < 0) return pass();
    sc[size_t(r)] = size_t(sendcounts[r]);
    sd[size_t(r)] = size_t(sdispls[r]);
    rc[size_t(r)] = size_t(recvcounts[r]);
    rd[size_t(r)] = size_t(rdispls[r]);
    sent += sc[size_t(r)];
    received += rc[size_t(r)];
  }
  const CallFacts f{"MPI_Alltoallv", kAlltoall, received, recvtype, MPI_OP_NULL,
                    bytes_of(received, recvtype)};
  std::string refusal = type_refusal(recvtype);
  if (refusal.empty() && sendtype != recvtype) refusal = "send and receive types differ";
  if (refusal.empty() && sendbuf == recvbuf) refusal = kAliased;
  if (refusal.empty() && std::max(bytes_of(sent, sendtype), f.bytes) < p->min_bytes)
    refusal = "below COMMPRESS_MIN_BYTES=" + std::to_string(p->min_bytes) + " on some rank";
  return intercept({f, comm, refusal,
                    [&](const comm::Options& o) {
                      return comm::alltoallv(sendbuf, sc, sd, recvbuf, rc, rd,
                                             *float_dtype(recvtype), comm, o);
                    },
                    pass},
                   *p);
}

}  // namespace commpress::pmpi

using namespace commpress::pmpi;

// Each entry point asks may_intercept() itself: where nothing can be intercepted (a job with no
// policy) the call reaches PMPI_* with its arguments still in registers, without building the
// wrapper's `Pass` or calling it (the wrappers are exported, so not inlined here).
extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  const auto pass = [=] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); };
  return may_intercept() ? allreduce(sendbuf, recvbuf, count, datatype, op, comm, pass) : pass();
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  const auto pass = [=] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); };
  return may_intercept() ? reduce(sendbuf, recvbuf, count, datatype, op, root, comm, pass) : pass();
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto pass = [=] {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  };
  return may_intercept()
             ? reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, pass)
             : pass();
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto pass = [=] {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  };
  return may_intercept() ? reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, pass)
                         : pass();
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const auto pass = [=] { return PMPI_Bcast(buffer, count, datatype, root, comm); };
  return may_intercept() ? bcast(buffer, count, datatype, root, comm, pass) : pass();
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pass = [=] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  return may_intercept()
             ? allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, pass)
             : pass();
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pass = [=] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  return may_intercept()
             ? alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, pass)
             : pass();
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pass = [=] {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  };
  return may_intercept() ? alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype, comm, pass)
                         : pass();
}

}  // extern "C"
