// Fortran programs (mpif.h and `use mpi`, gfortran's lower-case names with one underscore).
// Open MPI 4.1's Fortran bindings call PMPI_* directly, so the C entry points never see a
// Fortran call: these definitions take the Fortran names themselves, convert the handles and
// Open MPI's Fortran MPI_IN_PLACE, and run the same interception as the C calls. What
// commpress does not run goes to Open MPI's own Fortran routine (the next definition), so it
// behaves exactly as without the preload. `use mpi_f08` calls other names and is not
// intercepted.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pmpi/bypass.hpp"
#include "pmpi/collective_calls.hpp"
#include "pmpi/session.hpp"

namespace {

template <class F>
F next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "commpress_mpi: %s not found after this library\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are the addresses of common blocks.
const void* fortran_address(const char* name) {
  return dlsym(RTLD_DEFAULT, name);
}

const void* c_buffer(const void* fortran) {
  static const void* in_place = fortran_address("mpi_fortran_in_place_");
  return fortran != nullptr && fortran == in_place ? MPI_IN_PLACE : fortran;
}

bool is_bottom(const void* p) {
  static const void* bottom = fortran_address("mpi_fortran_bottom_");
  return p != nullptr && p == bottom;
}

}  // namespace

using commpress::pmpi::Bypass;
using F = MPI_Fint;

namespace {

// Allgather and alltoall: the same arguments, one block per rank.
using BlocksRoutine = void (*)(void*, F*, F*, void*, F*, F*, F*, F*);
using BlocksWrapper = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm,
                              const commpress::pmpi::Pass&);

void blocks(BlocksRoutine f, BlocksWrapper wrapper, void* sendbuf, F* sendcount, F* sendtype,
            void* recvbuf, F* recvcount, F* recvtype, F* comm, F* ierr) {
  auto pass = [&] {
    return f(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr), int(*ierr);
  };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  *ierr = wrapper(c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), recvbuf, *recvcount,
                  PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm), pass);
}

// After a nonblocking wrapper: unless Open MPI's own routine ran (it set request and ierr),
// the library's request in Fortran's terms.
void fortran_request(bool passed, int rc, MPI_Request r, F* request, F* ierr) {
  if (passed) return;
  *ierr = rc;
  if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

using IBlocksRoutine = void (*)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
using IBlocksWrapper = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype,
                               MPI_Comm, MPI_Request*, const commpress::pmpi::Pass&);

void iblocks(IBlocksRoutine f, IBlocksWrapper wrapper, void* sendbuf, F* sendcount, F* sendtype,
             void* recvbuf, F* recvcount, F* recvtype, F* comm, F* request, F* ierr) {
  bool passed = false;
  auto pass = [&] {
    passed = true;
    return f(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr),
           int(*ierr);
  };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = wrapper(c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), recvbuf,
                         *recvcount, PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm), &r, pass);
  fortran_request(passed, rc, r, request, ierr);
}

}  // namespace

extern "C" {

// Under a policy MPI is asked for MPI_THREAD_MULTIPLE, as from C (init_finalize.cpp): the
// nonblocking collectives' progress threads need it.
void mpi_init_(F* ierr) {
  {
    Bypass inside;
    F required = commpress::pmpi::level_for(MPI_THREAD_SINGLE), provided = 0;
    if (required == MPI_THREAD_SINGLE)
      next<void (*)(F*)>("mpi_init_")(ierr);
    else
      next<void (*)(F*, F*, F*)>("mpi_init_thread_")(&required, &provided, ierr);
  }
  if (*ierr == MPI_SUCCESS) commpress::pmpi::start_session_or_exit(false);
}

void mpi_init_thread_(F* required, F* provided, F* ierr) {
  {
    Bypass inside;
    F level = commpress::pmpi::level_for(*required);
    next<void (*)(F*, F*, F*)>("mpi_init_thread_")(&level, provided, ierr);
  }
  if (*ierr == MPI_SUCCESS) commpress::pmpi::start_session_or_exit(false);
}

void mpi_finalize_(F* ierr) {
  commpress::pmpi::finish_session();
  Bypass inside;
  next<void (*)(F*)>("mpi_finalize_")(ierr);
}

void mpi_comm_set_info_(F* comm, F* info, F* ierr) {
  *ierr = MPI_Comm_set_info(PMPI_Comm_f2c(*comm), PMPI_Info_f2c(*info));
}

void mpi_allreduce_(void* sendbuf, void* recvbuf, F* count, F* datatype, F* op, F* comm, F* ierr) {
  static auto f = next<void (*)(void*, void*, F*, F*, F*, F*, F*)>("mpi_allreduce_");
  auto pass = [&] { return f(sendbuf, recvbuf, count, datatype, op, comm, ierr), int(*ierr); };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  *ierr = commpress::pmpi::allreduce(c_buffer(sendbuf), recvbuf, *count, PMPI_Type_f2c(*datatype),
                                     PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm), pass);
}

void mpi_reduce_(void* sendbuf, void* recvbuf, F* count, F* datatype, F* op, F* root, F* comm,
                 F* ierr) {
  static auto f = next<void (*)(void*, void*, F*, F*, F*, F*, F*, F*)>("mpi_reduce_");
  auto pass = [&] { return f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr), int(*ierr); };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  *ierr = commpress::pmpi::reduce(c_buffer(sendbuf), recvbuf, *count, PMPI_Type_f2c(*datatype),
                                  PMPI_Op_f2c(*op), *root, PMPI_Comm_f2c(*comm), pass);
}

void mpi_reduce_scatter_block_(void* sendbuf, void* recvbuf, F* recvcount, F* datatype, F* op,
                               F* comm, F* ierr) {
  static auto f = next<void (*)(void*, void*, F*, F*, F*, F*, F*)>("mpi_reduce_scatter_block_");
  auto pass = [&] { return f(sendbuf, recvbuf, recvcount, datatype, op, comm, ierr), int(*ierr); };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  *ierr = commpress::pmpi::reduce_scatter_block(c_buffer(sendbuf), recvbuf, *recvcount,
                                                PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                                PMPI_Comm_f2c(*comm), pass);
}

void mpi_reduce_scatter_(void* sendbuf, void* recvbuf, F* recvcounts, F* datatype, F* op, F* comm,
                         F* ierr) {
  static auto f = next<void (*)(void*, void*, F*, F*, F*, F*, F*)>("mpi_reduce_scatter_");
  auto pass = [&] { return f(sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr), int(*ierr); };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  const MPI_Comm c = PMPI_Comm_f2c(*comm);
  int size = 0;
  PMPI_Comm_size(c, &size);
  const std::vector<int> counts(recvcounts, recvcounts + size);
  *ierr = commpress::pmpi::reduce_scatter(c_buffer(sendbuf), recvbuf, counts.data(),
                                          PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), c, pass);
}

void mpi_bcast_(void* buffer, F* count, F* datatype, F* root, F* comm, F* ierr) {
  static auto f = next<void (*)(void*, F*, F*, F*, F*, F*)>("mpi_bcast_");
  auto pass = [&] { return f(buffer, count, datatype, root, comm, ierr), int(*ierr); };
  if (is_bottom(buffer)) return void(pass());
  *ierr = commpress::pmpi::bcast(buffer, *count, PMPI_Type_f2c(*datatype), *root,
                                 PMPI_Comm_f2c(*comm), pass);
}

void mpi_allgather_(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,
                    F* recvtype, F* comm, F* ierr) {
  static auto f = next<BlocksRoutine>("mpi_allgather_");
  blocks(f, &commpress::pmpi::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
         recvtype, comm, ierr);
}

void mpi_alltoall_(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,
                   F* recvtype, F* comm, F* ierr) {
  static auto f = next<BlocksRoutine>("mpi_alltoall_");
  blocks(f, &commpress::pmpi::alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
         recvtype, comm, ierr);
}

// The nonblocking collectives: a request of the library's (a generalized request, completed
// by mpi_wait_ and the rest of Open MPI's Fortran completion calls) or Open MPI's own call.
void mpi_iallreduce_(void* sendbuf, void* recvbuf, F* count, F* datatype, F* op, F* comm,
                     F* request, F* ierr) {
  static auto f = next<void (*)(void*, void*, F*, F*, F*, F*, F*, F*)>("mpi_iallreduce_");
  bool passed = false;
  auto pass = [&] {
    passed = true;
    return f(sendbuf, recvbuf, count, datatype, op, comm, request, ierr), int(*ierr);
  };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = commpress::pmpi::iallreduce(c_buffer(sendbuf), recvbuf, *count,
                                             PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                                             PMPI_Comm_f2c(*comm), &r, pass);
  fortran_request(passed, rc, r, request, ierr);
}

void mpi_ireduce_scatter_block_(void* sendbuf, void* recvbuf, F* recvcount, F* datatype, F* op,
                                F* comm, F* request, F* ierr) {
  static auto f =
      next<void (*)(void*, void*, F*, F*, F*, F*, F*, F*)>("mpi_ireduce_scatter_block_");
  bool passed = false;
  auto pass = [&] {
    passed = true;
    return f(sendbuf, recvbuf, recvcount, datatype, op, comm, request, ierr), int(*ierr);
  };
  if (is_bottom(sendbuf) || is_bottom(recvbuf)) return void(pass());
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = commpress::pmpi::ireduce_scatter_block(
      c_buffer(sendbuf), recvbuf, *recvcount, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
      PMPI_Comm_f2c(*comm), &r, pass);
  fortran_request(passed, rc, r, request, ierr);
}

void mpi_ibcast_(void* buffer, F* count, F* datatype, F* root, F* comm, F* request, F* ierr) {
  static auto f = next<void (*)(void*, F*, F*, F*, F*, F*, F*)>("mpi_ibcast_");
  bool passed = false;
  auto pass = [&] {
    passed = true;
    return f(buffer, count, datatype, root, comm, request, ierr), int(*ierr);
  };
  if (is_bottom(buffer)) return void(pass());
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = commpress::pmpi::ibcast(buffer, *count, PMPI_Type_f2c(*datatype), *root,
                                         PMPI_Comm_f2c(*comm), &r, pass);
  fortran_request(passed, rc, r, request, ierr);
}

void mpi_iallgather_(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,
                     F* recvtype, F* comm, F* request, F* ierr) {
  static auto f = next<IBlocksRoutine>("mpi_iallgather_");
  iblocks(f, &commpress::pmpi::iallgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
          recvtype, comm, request, ierr);
}

void mpi_ialltoall_(void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,
                    F* recvtype, F* comm, F* request, F* ierr) {
  static auto f = next<IBlocksRoutine>("mpi_ialltoall_");
  iblocks(f, &commpress::pmpi::ialltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
          recvtype, comm, request, ierr);
}

}  // extern "C"
