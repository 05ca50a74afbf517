/* The plain build: every verb is the MPI call an unmodified application makes. */
#include <stdio.h>
#include <string.h>

#include "comm_ops.h"
#include "ops_accounting.h"

int ops_parse_flag(int argc, char** argv, int* i, char* err, size_t err_size) {
  (void)argc;
  if (strcmp(argv[*i], "--codec") == 0 || strcmp(argv[*i], "--bound") == 0) {
    snprintf(err, err_size,
             "%s: this is the plain MPI build (compress it with the PMPI library, or use the "
             "-commpress executable)",
             argv[*i]);
    return -1;
  }
  return 0;
}

const char* ops_usage(void) {
  return "";
}
const char* ops_variant(void) {
  return "mpi";
}
const char* ops_codec(void) {
  return "none";
}
const char* ops_bound(void) {
  return "lossless";
}
void ops_init(void) {
  ops_set_sent_known(0);
}
void ops_finalize(void) {}

static void check(int rc, const char* verb) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    ops_fail(verb, msg);
  }
}

/* MPI counts are ints; the applications' messages stay below 2^31 elements by construction
 * (the largest is ping-pong's 256 MiB of floats). */
static int as_count(size_t n, const char* verb) {
  if (n > (size_t)0x7fffffff) ops_fail(verb, "count exceeds INT_MAX");
  return (int)n;
}

void ops_send_f32(const float* buf, size_t n, int dest, int tag, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  check(MPI_Send(buf, as_count(n, "send"), MPI_FLOAT, dest, tag, comm), "MPI_Send");
  ops_account(MPI_Wtime() - t0, n * sizeof(float), n * sizeof(float));
}

void ops_recv_f32(float* buf, size_t n, int source, int tag, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  check(MPI_Recv(buf, as_count(n, "recv"), MPI_FLOAT, source, tag, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
  ops_account(MPI_Wtime() - t0, 0, 0);
}

void ops_halo_f32(const float* send_lo, float* recv_lo, int lo, const float* send_hi,
                  float* recv_hi, int hi, size_t n, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  int count = as_count(n, "halo");
  MPI_Request req[4];
  check(MPI_Irecv(recv_lo, count, MPI_FLOAT, lo, 1, comm, &req[0]), "MPI_Irecv");
  check(MPI_Irecv(recv_hi, count, MPI_FLOAT, hi, 0, comm, &req[1]), "MPI_Irecv");
  check(MPI_Isend(send_lo, count, MPI_FLOAT, lo, 0, comm, &req[2]), "MPI_Isend");
  check(MPI_Isend(send_hi, count, MPI_FLOAT, hi, 1, comm, &req[3]), "MPI_Isend");
  check(MPI_Waitall(4, req, MPI_STATUSES_IGNORE), "MPI_Waitall");
  uint64_t bytes = (uint64_t)((lo != MPI_PROC_NULL) + (hi != MPI_PROC_NULL)) * n * sizeof(float);
  ops_account(MPI_Wtime() - t0, bytes, bytes);
}

void ops_bcast_f64(double* buf, size_t n, int root, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  check(MPI_Bcast(buf, as_count(n, "bcast"), MPI_DOUBLE, root, comm), "MPI_Bcast");
  int rank;
  MPI_Comm_rank(comm, &rank);
  uint64_t bytes = rank == root ? n * sizeof(double) : 0;
  ops_account(MPI_Wtime() - t0, bytes, bytes);
}

void ops_scatter_f64(const double* send, double* recv, size_t n, int root, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  int count = as_count(n, "scatter");
  check(MPI_Scatter(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, root, comm), "MPI_Scatter");
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  uint64_t bytes = rank == root ? (uint64_t)(size - 1) * n * sizeof(double) : 0;
  ops_account(MPI_Wtime() - t0, bytes, bytes);
}

void ops_allreduce_sum_f64(double* inout, size_t n, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  check(MPI_Allreduce(MPI_IN_PLACE, inout, as_count(n, "allreduce"), MPI_DOUBLE, MPI_SUM, comm),
        "MPI_Allreduce");
  ops_account(MPI_Wtime() - t0, n * sizeof(double), n * sizeof(double));
}

void ops_allreduce_sum_i64(int64_t* inout, size_t n, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  check(MPI_Allreduce(MPI_IN_PLACE, inout, as_count(n, "allreduce"), MPI_INT64_T, MPI_SUM, comm),
        "MPI_Allreduce");
  ops_account(MPI_Wtime() - t0, n * sizeof(int64_t), n * sizeof(int64_t));
}

void ops_alltoall_f64(const double* send, double* recv, size_t n, MPI_Comm comm) {
  double t0 = MPI_Wtime();
  int count = as_count(n, "alltoall");
  check(MPI_Alltoall(send, count, MPI_DOUBLE, recv, count, MPI_DOUBLE, comm), "MPI_Alltoall");
  int size;
  MPI_Comm_size(comm, &size);
  uint64_t bytes = (uint64_t)(size - 1) * n * sizeof(double);
  ops_account(MPI_Wtime() - t0, bytes, bytes);
}
