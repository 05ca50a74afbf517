/* The communication verbs the applications use, in two builds of the same program:
 * comm_ops_mpi.c runs them as plain MPI calls (no commpress header: the program runs as it
 * is, alone or under the PMPI interposition library), comm_ops_commpress.c runs them
 * through commpress's C API with the codec and bound given on the command line.
 *
 * Every verb times itself into the communication clock and counts the bytes this rank sends
 * (raw, and on the wire where the build knows it). Errors end the run on every rank with a
 * message: a verb never returns a failure to the application. */
#ifndef COMMPRESS_APPS_COMM_OPS_H
#define COMMPRESS_APPS_COMM_OPS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Consumes the flag at argv[*i] (and its value) if it belongs to this build, advancing *i.
 * Returns 1 if consumed, 0 if not its flag, -1 (message in err) if the flag is malformed or
 * belongs to the other build. Called before MPI_Init is not required. */
int ops_parse_flag(int argc, char** argv, int* i, char* err, size_t err_size);
/* The flags ops_parse_flag knows, for a usage message. */
const char* ops_usage(void);
/* "mpi", or "commpress" for the native build. */
const char* ops_variant(void);
/* The codec and bound this build compresses with ("none", "lossless" for the plain build). */
const char* ops_codec(void);
const char* ops_bound(void);
/* Sets up what the verbs need (after MPI_Init, before the first verb); ops_finalize frees it
 * (before MPI_Finalize). */
void ops_init(void);
void ops_finalize(void);

/* Point-to-point, floats or doubles. */
void ops_send_f32(const float* buf, size_t n, int dest, int tag, MPI_Comm comm);
void ops_recv_f32(float* buf, size_t n, int source, int tag, MPI_Comm comm);

/* Halo exchange: receive n floats from each of up to two neighbours and send n floats to
 * each (MPI_PROC_NULL for a missing one), all at once. */
void ops_halo_f32(const float* send_lo, float* recv_lo, int lo, const float* send_hi,
                  float* recv_hi, int hi, size_t n, MPI_Comm comm);

void ops_bcast_f64(double* buf, size_t n, int root, MPI_Comm comm);
/* Each rank receives n doubles; send (significant at root) holds size * n. */
void ops_scatter_f64(const double* send, double* recv, size_t n, int root, MPI_Comm comm);
void ops_allreduce_sum_f64(double* inout, size_t n, MPI_Comm comm);
/* Counts stay exact in every build. */
void ops_allreduce_sum_i64(int64_t* inout, size_t n, MPI_Comm comm);
/* Block j of n doubles of send goes to rank j; block j of recv comes from rank j. */
void ops_alltoall_f64(const double* send, double* recv, size_t n, MPI_Comm comm);

/* This rank's totals since ops_init. sent_known is 0 where the build cannot see the wire
 * (the plain build: an interposed library may compress underneath). */
typedef struct ops_totals {
  double comm_seconds;
  double predicted_seconds; /* the cost model's estimates of this rank's calls (native build) */
  uint64_t raw_bytes;
  uint64_t sent_bytes;
  int sent_known;
} ops_totals;
ops_totals ops_get_totals(void);
/* Restarts the clocks and counters (e.g. after a warm-up). */
void ops_reset_totals(void);

#ifdef __cplusplus
}
#endif

#endif
